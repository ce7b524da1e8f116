ALTER TABLE "ticketing_integrations" ADD COLUMN "hook_id" text;--> statement-breakpoint
ALTER TABLE "ticketing_integrations" ADD COLUMN "webhook_secret_enc" text;--> statement-breakpoint
ALTER TABLE "ticketing_integrations" ADD CONSTRAINT "ticketing_integrations_hook_id_unique" UNIQUE("hook_id");