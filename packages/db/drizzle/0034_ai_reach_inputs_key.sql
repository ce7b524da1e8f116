ALTER TABLE "ai_reach_summaries" ADD COLUMN "inputs_key" text;
