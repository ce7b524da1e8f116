CREATE TABLE "ai_reach_files" (
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"file_id" text NOT NULL,
	"external_id" text NOT NULL,
	"assistants" text[] DEFAULT '{}'::text[] NOT NULL,
	"sens_rank" smallint NOT NULL,
	"reach_people" integer NOT NULL,
	CONSTRAINT "ai_reach_files_connector_id_file_id_pk" PRIMARY KEY("connector_id","file_id")
);
--> statement-breakpoint
CREATE TABLE "ai_reach_summaries" (
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"subject" text NOT NULL,
	"kind" text NOT NULL,
	"label" text DEFAULT '' NOT NULL,
	"access" text,
	"client_key" text,
	"users" integer NOT NULL,
	"counts" jsonb NOT NULL,
	"worst" jsonb NOT NULL,
	"scan_id" text,
	"store_version" bigint NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ai_reach_summaries_connector_id_subject_pk" PRIMARY KEY("connector_id","subject")
);
--> statement-breakpoint
ALTER TABLE "workspace_snapshots" ADD COLUMN "store_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ai_reach_files" ADD CONSTRAINT "ai_reach_files_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_reach_summaries" ADD CONSTRAINT "ai_reach_summaries_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_reach_files_page_idx" ON "ai_reach_files" USING btree ("org_id","sens_rank","reach_people" DESC NULLS LAST,"file_id");--> statement-breakpoint
CREATE INDEX "ai_reach_files_external_idx" ON "ai_reach_files" USING btree ("connector_id","external_id");--> statement-breakpoint
CREATE INDEX "ai_reach_summaries_org_idx" ON "ai_reach_summaries" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "findings_internal_open_idx" ON "findings" USING btree ("org_id","rule_id","severity_rank","id") WHERE status = 'OPEN' AND category = 'internal_exposure';--> statement-breakpoint
CREATE INDEX "findings_internal_open_resource_idx" ON "findings" USING btree ("org_id","severity","connector_id","resource_id") WHERE status = 'OPEN' AND category = 'internal_exposure';--> statement-breakpoint
-- Every update of a connector's snapshot row (a scan's commit, a remediation's change to the store)
-- moves its store version: ai_reach_summaries rows computed from an older one are stale.
CREATE FUNCTION workspace_snapshots_store_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.store_version := OLD.store_version + 1;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER workspace_snapshots_store_version BEFORE UPDATE ON workspace_snapshots
  FOR EACH ROW EXECUTE FUNCTION workspace_snapshots_store_version();
