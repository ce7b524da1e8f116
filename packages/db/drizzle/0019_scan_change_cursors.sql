CREATE TABLE "change_cursors" (
	"connector_id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"source" text NOT NULL,
	"feeds" jsonb NOT NULL,
	"rules_key" text NOT NULL,
	"scan_id" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "kind" text DEFAULT 'full' NOT NULL;--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "full_reason" text;--> statement-breakpoint
ALTER TABLE "change_cursors" ADD CONSTRAINT "change_cursors_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "change_cursors" ADD CONSTRAINT "change_cursors_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;