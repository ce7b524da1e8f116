-- Issue 18, tenant coverage: each tenant-configuration check's latest result per connector (the
-- compliance evidence of the controls it maps to), what each scan could not read (scans.coverage),
-- and the connect-time access check (connectors.access).
CREATE TABLE "tenant_check_results" (
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"check_id" text NOT NULL,
	"benchmark" jsonb NOT NULL,
	"status" text NOT NULL,
	"observed" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"reason" text,
	"scan_id" text NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "tenant_check_results_connector_id_check_id_pk" PRIMARY KEY("connector_id","check_id")
);
--> statement-breakpoint
ALTER TABLE "connectors" ADD COLUMN "access" jsonb;--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "coverage" jsonb;--> statement-breakpoint
ALTER TABLE "tenant_check_results" ADD CONSTRAINT "tenant_check_results_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_check_results" ADD CONSTRAINT "tenant_check_results_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tenant_check_results_org_idx" ON "tenant_check_results" USING btree ("org_id","check_id");