ALTER TABLE "prevention_rules" ADD COLUMN "acting_set_by" jsonb;--> statement-breakpoint
ALTER TABLE "prevention_rules" ADD COLUMN "approved_by" jsonb;--> statement-breakpoint
ALTER TABLE "prevention_rules" ADD COLUMN "approved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "remediations" ADD COLUMN "undo_request" jsonb;