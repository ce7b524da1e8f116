CREATE TABLE "demo_overlays" (
	"connector_id" text NOT NULL,
	"key" text NOT NULL,
	"change" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "demo_overlays_connector_id_key_pk" PRIMARY KEY("connector_id","key")
);
--> statement-breakpoint
CREATE TABLE "remediation_steps" (
	"id" text PRIMARY KEY NOT NULL,
	"remediation_id" text NOT NULL,
	"org_id" text NOT NULL,
	"connector_id" text NOT NULL,
	"seq" integer NOT NULL,
	"action" text NOT NULL,
	"resource" jsonb NOT NULL,
	"before" jsonb NOT NULL,
	"after" jsonb,
	"reversible" boolean NOT NULL,
	"irreversible_reason" text,
	"finding_ids" text[] DEFAULT '{}' NOT NULL,
	"people" text[] DEFAULT '{}' NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"started_at" timestamp with time zone,
	"applied_at" timestamp with time zone,
	"reverted_at" timestamp with time zone,
	"error" jsonb,
	"pre_image" jsonb,
	"restored_id" text,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "remediations" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"status" text DEFAULT 'PLANNED' NOT NULL,
	"origin" text DEFAULT 'manual' NOT NULL,
	"prevention_rule_id" text,
	"dry_run" boolean DEFAULT false NOT NULL,
	"request" jsonb NOT NULL,
	"predicted" jsonb NOT NULL,
	"controls" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"planned_by" jsonb NOT NULL,
	"approved_by" jsonb,
	"approved_at" timestamp with time zone,
	"apply_key" text,
	"apply_started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"undo_until" timestamp with time zone,
	"reverted_at" timestamp with time zone,
	"step_counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"step_total" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "remediation_four_eyes" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "prevention_change_cap" integer DEFAULT 25 NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "partner_may_approve" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "connectors" ADD COLUMN "write_access" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Demo connectors are the sandbox: the ones made before write access existed may act too.
UPDATE "connectors" SET "write_access" = true WHERE "mode" = 'demo';--> statement-breakpoint
ALTER TABLE "findings" ADD COLUMN "resolved_by" text;--> statement-breakpoint
ALTER TABLE "prevention_rules" ADD COLUMN "dry_run" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "demo_overlays" ADD CONSTRAINT "demo_overlays_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remediation_steps" ADD CONSTRAINT "remediation_steps_remediation_id_remediations_id_fk" FOREIGN KEY ("remediation_id") REFERENCES "public"."remediations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remediation_steps" ADD CONSTRAINT "remediation_steps_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remediations" ADD CONSTRAINT "remediations_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "remediation_steps_remediation_idx" ON "remediation_steps" USING btree ("remediation_id","seq");--> statement-breakpoint
CREATE INDEX "remediation_steps_connector_idx" ON "remediation_steps" USING btree ("connector_id");--> statement-breakpoint
CREATE INDEX "remediations_org_created_idx" ON "remediations" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "remediations_active_idx" ON "remediations" USING btree ("status") WHERE status IN ('APPLYING', 'REVERTING');