-- Issue 16: an organization may be a sandbox; a rotated webhook secret keeps signing beside the new one
-- until previous_secret_expires_at (docs/decisions.md, "Sandbox" and "Webhook secret rotation").
ALTER TABLE "organizations" ADD COLUMN "is_sandbox" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret_enc" text;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret_expires_at" timestamp with time zone;