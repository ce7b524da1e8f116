CREATE TABLE "workspace_users" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"external_id" text NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"is_admin" boolean NOT NULL,
	"mfa_enabled" boolean NOT NULL,
	"status" text NOT NULL,
	"last_login_at" timestamp with time zone,
	"source_created_at" timestamp with time zone,
	"dormant" boolean NOT NULL,
	"external_shares_owned" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_files" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"external_id" text NOT NULL,
	"name" text NOT NULL,
	"mime_type" text NOT NULL,
	"owner_email" text NOT NULL,
	"drive_external_id" text,
	"sensitivity" text NOT NULL,
	"labels" text[] DEFAULT '{}' NOT NULL,
	"exposure" text NOT NULL,
	"external_permission_count" integer DEFAULT 0 NOT NULL,
	"size_bytes" bigint DEFAULT 0 NOT NULL,
	"modified_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_permissions" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"file_id" text NOT NULL,
	"external_id" text NOT NULL,
	"sharing_type" text NOT NULL,
	"target" text NOT NULL,
	"role" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_drives" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"external_id" text NOT NULL,
	"name" text NOT NULL,
	"members" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"member_count" integer NOT NULL,
	"external_member_count" integer NOT NULL,
	"domain_users_only" boolean NOT NULL,
	"drive_members_only" boolean NOT NULL,
	"copy_requires_writer_permission" boolean NOT NULL,
	"file_count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "activity_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "activity_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"external_id" text NOT NULL,
	"principal" text NOT NULL,
	"kind" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"resource_id" text,
	"target" text,
	"count" integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "incidents" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"title" text NOT NULL,
	"status" text DEFAULT 'OPEN' NOT NULL,
	"priority" text NOT NULL,
	"assignee" text DEFAULT '' NOT NULL,
	"linked_finding_ids" text[] DEFAULT '{}' NOT NULL,
	"log" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"post_mortem" jsonb,
	"created_by_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "workspace_users" ADD CONSTRAINT "workspace_users_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_users" ADD CONSTRAINT "workspace_users_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_files" ADD CONSTRAINT "workspace_files_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_files" ADD CONSTRAINT "workspace_files_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_permissions" ADD CONSTRAINT "workspace_permissions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_permissions" ADD CONSTRAINT "workspace_permissions_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_drives" ADD CONSTRAINT "workspace_drives_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_drives" ADD CONSTRAINT "workspace_drives_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_events" ADD CONSTRAINT "activity_events_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_events" ADD CONSTRAINT "activity_events_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_users_connector_external_key" ON "workspace_users" USING btree ("connector_id","external_id");--> statement-breakpoint
CREATE INDEX "workspace_users_org_email_idx" ON "workspace_users" USING btree ("org_id","email");--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_files_connector_external_key" ON "workspace_files" USING btree ("connector_id","external_id");--> statement-breakpoint
CREATE INDEX "workspace_files_org_exposure_idx" ON "workspace_files" USING btree ("org_id","exposure");--> statement-breakpoint
CREATE INDEX "workspace_files_org_owner_idx" ON "workspace_files" USING btree ("org_id","owner_email");--> statement-breakpoint
CREATE INDEX "workspace_permissions_org_type_idx" ON "workspace_permissions" USING btree ("org_id","sharing_type");--> statement-breakpoint
CREATE INDEX "workspace_permissions_file_idx" ON "workspace_permissions" USING btree ("file_id");--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_drives_connector_external_key" ON "workspace_drives" USING btree ("connector_id","external_id");--> statement-breakpoint
CREATE INDEX "workspace_drives_org_idx" ON "workspace_drives" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "activity_events_connector_external_key" ON "activity_events" USING btree ("connector_id","external_id");--> statement-breakpoint
CREATE INDEX "activity_events_org_principal_at_idx" ON "activity_events" USING btree ("org_id","principal","at");--> statement-breakpoint
CREATE INDEX "activity_events_org_at_idx" ON "activity_events" USING btree ("org_id","at");--> statement-breakpoint
CREATE INDEX "incidents_org_opened_idx" ON "incidents" USING btree ("org_id","created_at","id");