ALTER TABLE "remediations" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "remediations" ADD COLUMN "lease_token" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "remediations" ADD COLUMN "lease_expires_at" timestamp with time zone;