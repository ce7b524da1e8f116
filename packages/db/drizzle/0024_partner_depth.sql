CREATE TABLE "partner_access" (
	"client_org_id" text PRIMARY KEY NOT NULL,
	"partner_org_id" text NOT NULL,
	"granted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"granted_by_user_id" text,
	"withdrawn_at" timestamp with time zone,
	"withdrawn_by_user_id" text
);
--> statement-breakpoint
CREATE TABLE "partner_actions" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_org_id" text NOT NULL,
	"source" text NOT NULL,
	"source_id" text NOT NULL,
	"created_by_user_id" text,
	"created_by_email" text NOT NULL,
	"clients" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partner_campaigns" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_org_id" text NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"title" text NOT NULL,
	"severity" text NOT NULL,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"client_org_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"client_count" integer DEFAULT 0 NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "partner_drift" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_org_id" text NOT NULL,
	"standard_id" text NOT NULL,
	"client_org_id" text NOT NULL,
	"rule" text NOT NULL,
	"severity" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"since" timestamp with time zone DEFAULT now() NOT NULL,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "partner_group_members" (
	"group_id" text NOT NULL,
	"client_org_id" text NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partner_group_members_group_id_client_org_id_pk" PRIMARY KEY("group_id","client_org_id")
);
--> statement-breakpoint
CREATE TABLE "partner_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_org_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partner_standard_assignments" (
	"id" text PRIMARY KEY NOT NULL,
	"standard_id" text NOT NULL,
	"partner_org_id" text NOT NULL,
	"client_org_id" text,
	"group_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partner_standard_assignments_one_target" CHECK (num_nonnulls("partner_standard_assignments"."client_org_id", "partner_standard_assignments"."group_id") = 1)
);
--> statement-breakpoint
CREATE TABLE "partner_standards" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_org_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"policies" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"prevention_rules" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"trusted_domains" text[] DEFAULT '{}'::text[] NOT NULL,
	"min_score" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_scenario_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'RUNNING' NOT NULL,
	"requested_by_user_id" text,
	"result" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "include_clients" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "remediations" ADD COLUMN "partner_action_id" text;--> statement-breakpoint
ALTER TABLE "partner_access" ADD CONSTRAINT "partner_access_client_org_id_organizations_id_fk" FOREIGN KEY ("client_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_access" ADD CONSTRAINT "partner_access_partner_org_id_organizations_id_fk" FOREIGN KEY ("partner_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_actions" ADD CONSTRAINT "partner_actions_partner_org_id_organizations_id_fk" FOREIGN KEY ("partner_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_campaigns" ADD CONSTRAINT "partner_campaigns_partner_org_id_organizations_id_fk" FOREIGN KEY ("partner_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_drift" ADD CONSTRAINT "partner_drift_partner_org_id_organizations_id_fk" FOREIGN KEY ("partner_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_drift" ADD CONSTRAINT "partner_drift_standard_id_partner_standards_id_fk" FOREIGN KEY ("standard_id") REFERENCES "public"."partner_standards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_drift" ADD CONSTRAINT "partner_drift_client_org_id_organizations_id_fk" FOREIGN KEY ("client_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_group_members" ADD CONSTRAINT "partner_group_members_group_id_partner_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."partner_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_group_members" ADD CONSTRAINT "partner_group_members_client_org_id_organizations_id_fk" FOREIGN KEY ("client_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_groups" ADD CONSTRAINT "partner_groups_partner_org_id_organizations_id_fk" FOREIGN KEY ("partner_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_standard_assignments" ADD CONSTRAINT "partner_standard_assignments_standard_id_fkey" FOREIGN KEY ("standard_id") REFERENCES "public"."partner_standards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_standard_assignments" ADD CONSTRAINT "partner_standard_assignments_partner_org_id_organizations_id_fk" FOREIGN KEY ("partner_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_standard_assignments" ADD CONSTRAINT "partner_standard_assignments_client_org_id_organizations_id_fk" FOREIGN KEY ("client_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_standard_assignments" ADD CONSTRAINT "partner_standard_assignments_group_id_partner_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."partner_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_standards" ADD CONSTRAINT "partner_standards_partner_org_id_organizations_id_fk" FOREIGN KEY ("partner_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_scenario_runs" ADD CONSTRAINT "sandbox_scenario_runs_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "partner_access_partner_idx" ON "partner_access" USING btree ("partner_org_id");--> statement-breakpoint
CREATE INDEX "partner_actions_partner_idx" ON "partner_actions" USING btree ("partner_org_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_campaigns_subject_key" ON "partner_campaigns" USING btree ("partner_org_id","kind","subject");--> statement-breakpoint
CREATE INDEX "partner_campaigns_list_idx" ON "partner_campaigns" USING btree ("partner_org_id","status","last_seen_at");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_drift_open_key" ON "partner_drift" USING btree ("standard_id","client_org_id","rule") WHERE "partner_drift"."resolved_at" IS NULL;--> statement-breakpoint
CREATE INDEX "partner_drift_partner_idx" ON "partner_drift" USING btree ("partner_org_id","client_org_id");--> statement-breakpoint
CREATE INDEX "partner_group_members_client_idx" ON "partner_group_members" USING btree ("client_org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_groups_name_key" ON "partner_groups" USING btree ("partner_org_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_standard_assignments_client_key" ON "partner_standard_assignments" USING btree ("standard_id","client_org_id") WHERE "partner_standard_assignments"."client_org_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "partner_standard_assignments_group_key" ON "partner_standard_assignments" USING btree ("standard_id","group_id") WHERE "partner_standard_assignments"."group_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "partner_standard_assignments_partner_idx" ON "partner_standard_assignments" USING btree ("partner_org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_standards_name_key" ON "partner_standards" USING btree ("partner_org_id","name");--> statement-breakpoint
CREATE INDEX "sandbox_scenario_runs_org_idx" ON "sandbox_scenario_runs" USING btree ("org_id","created_at");--> statement-breakpoint
-- Every managed client has a consent row: the relationships made before consent existed (by the
-- operator, `org:create --managed-by`) count as granted when they were made.
INSERT INTO "partner_access" ("client_org_id", "partner_org_id", "granted_at")
SELECT "id", "managed_by_org_id", "created_at" FROM "organizations" WHERE "managed_by_org_id" IS NOT NULL;--> statement-breakpoint
-- The relationship and its consent row move together, whoever sets managed_by_org_id (the CLI,
-- the demo, tests): a new partner starts with access granted by the operator; no partner, no row.
CREATE FUNCTION partner_access_follow_manager() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.managed_by_org_id IS NULL THEN
    DELETE FROM partner_access WHERE client_org_id = NEW.id;
  ELSIF TG_OP = 'INSERT' OR OLD.managed_by_org_id IS DISTINCT FROM NEW.managed_by_org_id THEN
    INSERT INTO partner_access (client_org_id, partner_org_id, granted_at)
    VALUES (NEW.id, NEW.managed_by_org_id, now())
    ON CONFLICT (client_org_id) DO UPDATE SET partner_org_id = EXCLUDED.partner_org_id,
      granted_at = now(), granted_by_user_id = NULL, withdrawn_at = NULL, withdrawn_by_user_id = NULL;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER organizations_partner_access AFTER INSERT OR UPDATE OF managed_by_org_id ON organizations
FOR EACH ROW EXECUTE FUNCTION partner_access_follow_manager();
