CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
ALTER TABLE "workspace_permissions" ADD COLUMN "target_domain" text;
--> statement-breakpoint
ALTER TABLE "workspace_users" ADD COLUMN "dormant_days" integer;
--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "client_id" text DEFAULT '' NOT NULL;
--> statement-breakpoint
CREATE INDEX "workspace_users_search_trgm" ON "workspace_users" USING gin ((lower("email" || ' ' || "name")) gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "workspace_users_org_order_idx" ON "workspace_users" USING btree ("org_id","email","id");
--> statement-breakpoint
CREATE INDEX "workspace_files_search_trgm" ON "workspace_files" USING gin ((lower("name" || ' ' || "owner_email")) gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "workspace_files_org_order_idx" ON "workspace_files" USING btree ("org_id","modified_at","id");
--> statement-breakpoint
CREATE INDEX "workspace_drives_search_trgm" ON "workspace_drives" USING gin ((lower("name")) gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "workspace_permissions_connector_idx" ON "workspace_permissions" USING btree ("connector_id");
--> statement-breakpoint
CREATE TABLE "workspace_snapshots" (
	"connector_id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"scan_id" text,
	"taken_at" timestamp with time zone NOT NULL,
	"users" integer NOT NULL,
	"files" integer NOT NULL,
	"drives" integer NOT NULL,
	"permissions" integer NOT NULL,
	"shares" integer NOT NULL,
	"grants" integer NOT NULL,
	"metrics" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspace_snapshots" ADD CONSTRAINT "workspace_snapshots_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "workspace_snapshots" ADD CONSTRAINT "workspace_snapshots_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "workspace_snapshots_org_idx" ON "workspace_snapshots" USING btree ("org_id");
--> statement-breakpoint
CREATE TABLE "workspace_shares" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"file_id" text NOT NULL,
	"file_external_id" text NOT NULL,
	"resource_name" text NOT NULL,
	"owner_email" text NOT NULL,
	"sharing_type" text NOT NULL,
	"target" text NOT NULL,
	"target_count" integer NOT NULL,
	"target_domains" text[] DEFAULT '{}' NOT NULL,
	"permission" text NOT NULL,
	"sensitivity" text NOT NULL,
	"base_severity" text NOT NULL,
	"severity" text NOT NULL,
	"severity_rank" integer NOT NULL,
	"risk_rank" integer NOT NULL,
	"approved_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "workspace_shares" ADD CONSTRAINT "workspace_shares_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "workspace_shares" ADD CONSTRAINT "workspace_shares_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "workspace_shares_connector_idx" ON "workspace_shares" USING btree ("connector_id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_risk_idx" ON "workspace_shares" USING btree ("org_id","risk_rank","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_severity_idx" ON "workspace_shares" USING btree ("org_id","severity_rank","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_name_idx" ON "workspace_shares" USING btree ("org_id","resource_name","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_owner_idx" ON "workspace_shares" USING btree ("org_id","owner_email","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_target_idx" ON "workspace_shares" USING btree ("org_id","target","id");
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_approved_idx" ON "workspace_shares" USING btree ("org_id") WHERE "approved_until" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "workspace_shares_org_type_risk_idx" ON "workspace_shares" USING btree ("org_id","sharing_type","risk_rank","id");
--> statement-breakpoint
CREATE TABLE "sharing_approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"item_id" text NOT NULL,
	"resource_name" text NOT NULL,
	"sharing_type" text NOT NULL,
	"target" text NOT NULL,
	"reason" text NOT NULL,
	"approved_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"withdrawn_at" timestamp with time zone,
	"lapsed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "sharing_approvals" ADD CONSTRAINT "sharing_approvals_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "sharing_approvals_org_item_idx" ON "sharing_approvals" USING btree ("org_id","item_id");
--> statement-breakpoint
CREATE INDEX "sharing_approvals_expiry_idx" ON "sharing_approvals" USING btree ("expires_at") WHERE "withdrawn_at" IS NULL AND "lapsed_at" IS NULL;
--> statement-breakpoint
CREATE TABLE "flow_nodes" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"label" text NOT NULL,
	"risk_score" integer NOT NULL,
	"owner_email" text,
	"domains" text[] DEFAULT '{}' NOT NULL,
	CONSTRAINT "flow_nodes_pk" PRIMARY KEY ("org_id","id")
);
--> statement-breakpoint
ALTER TABLE "flow_nodes" ADD CONSTRAINT "flow_nodes_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "flow_nodes_org_order_idx" ON "flow_nodes" USING btree ("org_id","risk_score","id");
--> statement-breakpoint
CREATE INDEX "flow_nodes_org_owner_idx" ON "flow_nodes" USING btree ("org_id","owner_email");
--> statement-breakpoint
CREATE TABLE "flow_edges" (
	"org_id" text NOT NULL,
	"source" text NOT NULL,
	"target" text NOT NULL,
	"scope" text NOT NULL,
	"severity" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "flow_edges" ADD CONSTRAINT "flow_edges_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "flow_edges_org_source_idx" ON "flow_edges" USING btree ("org_id","source");
--> statement-breakpoint
CREATE TABLE "flow_summaries" (
	"org_id" text PRIMARY KEY NOT NULL,
	"total_nodes" integer NOT NULL,
	"external_files" integer NOT NULL,
	"public_links" integer NOT NULL,
	"shared_drives_exposed" integer NOT NULL,
	"risk_score" integer NOT NULL,
	"built_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "flow_summaries" ADD CONSTRAINT "flow_summaries_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "oauth_grant_events" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"client_id" text NOT NULL,
	"grant_external_id" text NOT NULL,
	"user_email" text NOT NULL,
	"kind" text NOT NULL,
	"scopes" text[] DEFAULT '{}' NOT NULL,
	"previous_scopes" text[] DEFAULT '{}' NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_grant_events" ADD CONSTRAINT "oauth_grant_events_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "oauth_grant_events" ADD CONSTRAINT "oauth_grant_events_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "oauth_grant_events_org_client_idx" ON "oauth_grant_events" USING btree ("org_id","client_id","at");
--> statement-breakpoint
-- A disconnected connector takes its snapshot with it (cascade); the organization's derived graph,
-- which mixed it in, is cleared rather than left showing what is gone (the next scan rebuilds it).
CREATE FUNCTION flow_graph_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM flow_edges WHERE org_id = OLD.org_id;
  DELETE FROM flow_nodes WHERE org_id = OLD.org_id;
  DELETE FROM flow_summaries WHERE org_id = OLD.org_id;
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER workspace_snapshots_forget_graph AFTER DELETE ON workspace_snapshots
  FOR EACH ROW EXECUTE FUNCTION flow_graph_forget();
