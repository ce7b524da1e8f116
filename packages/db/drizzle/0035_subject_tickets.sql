CREATE TABLE "subject_tickets" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"finding_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"provider" text NOT NULL,
	"external_id" text NOT NULL,
	"url" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "close_claimed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "closed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "close_proof" jsonb;--> statement-breakpoint
ALTER TABLE "subject_tickets" ADD CONSTRAINT "subject_tickets_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "subject_tickets_org_kind_subject_key" ON "subject_tickets" USING btree ("org_id","kind","subject");--> statement-breakpoint
-- Tickets the product already closed before closed_at existed are not closed again.
UPDATE "tickets" SET "closed_at" = "created_at" WHERE "status" = 'closed:resolved';
