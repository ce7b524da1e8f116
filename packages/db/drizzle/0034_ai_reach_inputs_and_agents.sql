ALTER TABLE "ai_reach_files" ADD COLUMN "any_assistant" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "ai_reach_summaries" ADD COLUMN "inputs_key" text;
