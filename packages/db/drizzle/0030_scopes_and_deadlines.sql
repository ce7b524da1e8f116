ALTER TABLE "organizations" ADD COLUMN "incident_regulations_off" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "scopes" text[];--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "deadline_notices" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
-- Incidents resolved before the column existed: their clocks stop when they were closed, or at their last update.
UPDATE "incidents" SET "resolved_at" = COALESCE("closed_at", "updated_at") WHERE "status" IN ('RESOLVED', 'CLOSED');
