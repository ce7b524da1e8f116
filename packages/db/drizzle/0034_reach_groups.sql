CREATE TABLE "workspace_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"connector_id" text NOT NULL,
	"external_id" text NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"member_count" integer NOT NULL,
	"member_emails" text[] DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspace_groups" ADD CONSTRAINT "workspace_groups_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_groups_connector_external_key" ON "workspace_groups" USING btree ("connector_id","external_id");--> statement-breakpoint
CREATE INDEX "workspace_groups_connector_email_idx" ON "workspace_groups" USING btree ("connector_id","email");--> statement-breakpoint
CREATE INDEX "workspace_files_connector_owner_idx" ON "workspace_files" USING btree ("connector_id","owner_email");--> statement-breakpoint
CREATE INDEX "workspace_permissions_connector_target_idx" ON "workspace_permissions" USING btree ("connector_id","target");