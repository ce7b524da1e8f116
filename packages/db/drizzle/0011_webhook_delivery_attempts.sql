ALTER TABLE "webhook_deliveries" ADD COLUMN "redelivery_requested" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
CREATE TABLE "webhook_delivery_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL REFERENCES "organizations"("id") ON DELETE cascade,
	"delivery_id" text NOT NULL REFERENCES "webhook_deliveries"("id") ON DELETE cascade,
	"attempt" integer NOT NULL,
	"manual" boolean DEFAULT false NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"status_code" integer,
	"error" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_delivery_attempts_delivery_attempt_key" ON "webhook_delivery_attempts" ("delivery_id","attempt");
--> statement-breakpoint
-- The delivery log already knows the last attempt of each delivery: keep it as that attempt's row.
INSERT INTO "webhook_delivery_attempts" ("id", "org_id", "delivery_id", "attempt", "started_at", "duration_ms", "status_code", "error")
SELECT 'dat_' || substr(md5(d."id"), 1, 24), d."org_id", d."id", d."attempts",
       coalesce(d."delivered_at", d."created_at"), 0, d."last_status_code", d."last_error"
FROM "webhook_deliveries" d
WHERE d."attempts" > 0 AND (d."last_status_code" IS NOT NULL OR d."last_error" IS NOT NULL);
