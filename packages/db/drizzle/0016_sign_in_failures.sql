-- Failed sign-ins, recorded the same way whether or not the address has an account (issue 20,
-- item 11: the SIGN_IN_FAILED audit write made a known address measurably slower to refuse),
-- then appended to the organization's audit chain after the response. No foreign keys: checking
-- them would make the known-account insert do more work than the unknown one.
CREATE TABLE "sign_in_failures" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"user_id" text,
	"org_id" text,
	"attempted_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sign_in_failures_attempted_idx" ON "sign_in_failures" USING btree ("attempted_at");--> statement-breakpoint
CREATE INDEX "sign_in_failures_user_idx" ON "sign_in_failures" USING btree ("user_id");
