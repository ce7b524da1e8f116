CREATE TABLE "compliance_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL REFERENCES "organizations"("id") ON DELETE cascade,
	"framework" text NOT NULL,
	"period_days" integer NOT NULL,
	"satisfied" integer NOT NULL,
	"partial" integer NOT NULL,
	"gap" integer NOT NULL,
	"controls" jsonb NOT NULL,
	"requested_by_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "compliance_runs_org_created_idx" ON "compliance_runs" ("org_id","created_at","id");
--> statement-breakpoint
CREATE TABLE "evidence_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL REFERENCES "organizations"("id") ON DELETE cascade,
	"framework" text NOT NULL,
	"period_days" integer NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"error" text,
	"file_count" integer DEFAULT 0 NOT NULL,
	"control_count" integer DEFAULT 0 NOT NULL,
	"size_bytes" bigint DEFAULT 0 NOT NULL,
	"sha256" text,
	"requested_by_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "evidence_jobs_org_created_idx" ON "evidence_jobs" ("org_id","created_at");
--> statement-breakpoint
CREATE INDEX "evidence_jobs_expires_idx" ON "evidence_jobs" ("expires_at");
--> statement-breakpoint
CREATE TABLE "evidence_chunks" (
	"job_id" text NOT NULL REFERENCES "evidence_jobs"("id") ON DELETE cascade,
	"seq" integer NOT NULL,
	"data" bytea NOT NULL,
	CONSTRAINT "evidence_chunks_job_id_seq_pk" PRIMARY KEY("job_id","seq")
);
--> statement-breakpoint
ALTER TABLE "evidence_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;
--> statement-breakpoint
CREATE TABLE "partner_settings" (
	"org_id" text PRIMARY KEY NOT NULL REFERENCES "organizations"("id") ON DELETE cascade,
	"name" text,
	"report_schedule" text DEFAULT 'NONE' NOT NULL,
	"notify_unhealthy" boolean DEFAULT false NOT NULL,
	"logo_url" text,
	"logo" bytea,
	"logo_mime" text,
	"accent_color" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partner_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_org_id" text NOT NULL REFERENCES "organizations"("id") ON DELETE cascade,
	"schedule" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"client_count" integer NOT NULL,
	"size_bytes" bigint NOT NULL,
	"pdf" bytea NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "partner_reports_period_key" ON "partner_reports" ("partner_org_id","schedule","period_start");
--> statement-breakpoint
CREATE INDEX "partner_reports_partner_created_idx" ON "partner_reports" ("partner_org_id","created_at");
--> statement-breakpoint
CREATE TABLE "partner_client_health" (
	"org_id" text PRIMARY KEY NOT NULL REFERENCES "organizations"("id") ON DELETE cascade,
	"last_score" integer,
	"unhealthy_sources" text[] DEFAULT '{}' NOT NULL,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL
);
