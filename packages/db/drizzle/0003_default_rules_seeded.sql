ALTER TABLE "organizations" ADD COLUMN "default_rules_seeded" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Organizations that already have rules were seeded before this column existed.
UPDATE "organizations" SET "default_rules_seeded" = true
  WHERE "id" IN (SELECT "org_id" FROM "security_policies" UNION SELECT "org_id" FROM "prevention_rules");
