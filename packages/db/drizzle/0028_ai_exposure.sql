ALTER TABLE "oauth_grants" ADD COLUMN "access" text DEFAULT 'delegated' NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "agent_source" text;--> statement-breakpoint
ALTER TABLE "workspace_users" ADD COLUMN "assistants" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_files" ADD COLUMN "reach_people" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_files" ADD COLUMN "reach_org_wide" boolean DEFAULT false NOT NULL;