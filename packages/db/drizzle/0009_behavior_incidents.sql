CREATE TABLE "activity_weekly" (
	"org_id" text NOT NULL,
	"principal" text NOT NULL,
	"metric" text NOT NULL,
	"week" date NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "activity_weekly_org_id_principal_metric_week_pk" PRIMARY KEY("org_id","principal","metric","week")
);
--> statement-breakpoint
CREATE TABLE "behavior_baselines" (
	"org_id" text NOT NULL,
	"principal" text NOT NULL,
	"periods_learned" integer NOT NULL,
	"source" text NOT NULL,
	"external_share_median" real NOT NULL,
	"external_share_scale" real NOT NULL,
	"resource_access_median" real NOT NULL,
	"resource_access_scale" real NOT NULL,
	"oauth_grant_median" real NOT NULL,
	"oauth_grant_scale" real NOT NULL,
	"risk_total" integer DEFAULT 0 NOT NULL,
	"last_active_at" timestamp with time zone,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "behavior_baselines_org_id_principal_pk" PRIMARY KEY("org_id","principal")
);
--> statement-breakpoint
CREATE TABLE "behavior_weekly_risk" (
	"org_id" text NOT NULL,
	"principal" text NOT NULL,
	"week" text NOT NULL,
	"risk" integer NOT NULL,
	CONSTRAINT "behavior_weekly_risk_org_id_principal_week_pk" PRIMARY KEY("org_id","principal","week")
);
--> statement-breakpoint
CREATE TABLE "anomalies" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"principal" text NOT NULL,
	"type" text NOT NULL,
	"window" text NOT NULL,
	"severity" text NOT NULL,
	"severity_rank" integer NOT NULL,
	"confidence" real NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"observed" integer NOT NULL,
	"expected" real NOT NULL,
	"periods_learned" integer NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "activity_weekly" ADD CONSTRAINT "activity_weekly_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "behavior_baselines" ADD CONSTRAINT "behavior_baselines_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "behavior_weekly_risk" ADD CONSTRAINT "behavior_weekly_risk_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "anomalies" ADD CONSTRAINT "anomalies_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "behavior_baselines_org_risk_idx" ON "behavior_baselines" USING btree ("org_id","risk_total","principal");--> statement-breakpoint
CREATE UNIQUE INDEX "anomalies_org_principal_type_window_key" ON "anomalies" USING btree ("org_id","principal","type","window");--> statement-breakpoint
CREATE INDEX "anomalies_org_at_idx" ON "anomalies" USING btree ("org_id","at","id");--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "summary" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "incidents_org_status_idx" ON "incidents" USING btree ("org_id","status");
