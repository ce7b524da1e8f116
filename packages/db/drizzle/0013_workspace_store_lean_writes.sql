-- The resource store and the activity log are bulk-loaded on every first scan (a million files, more
-- permissions, hundreds of thousands of events): each index and per-row check costs on every row.
-- Three were redundant:
-- * org_id foreign keys: org_id is copied from the row's connector, whose own foreign key cascades
--   from the organization, so the check only repeated what connector_id's check proves.
-- * unique (connector_id, external_id): the primary key is a hash of exactly those two values
--   (stableId), so uniqueness already holds; a plain connector_id index keeps the snapshot's prune
--   and the connector's cascade fast, at the cost of a duplicate-key append instead of a random insert.
-- * workspace_users (org_id, email): a prefix of (org_id, email, id).
ALTER TABLE "workspace_users" DROP CONSTRAINT "workspace_users_org_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "workspace_files" DROP CONSTRAINT "workspace_files_org_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "workspace_permissions" DROP CONSTRAINT "workspace_permissions_org_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "workspace_shares" DROP CONSTRAINT "workspace_shares_org_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "workspace_drives" DROP CONSTRAINT "workspace_drives_org_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "activity_events" DROP CONSTRAINT "activity_events_org_id_organizations_id_fk";--> statement-breakpoint
DROP INDEX "workspace_users_connector_external_key";--> statement-breakpoint
DROP INDEX "workspace_files_connector_external_key";--> statement-breakpoint
DROP INDEX "workspace_drives_connector_external_key";--> statement-breakpoint
DROP INDEX "workspace_users_org_email_idx";--> statement-breakpoint
CREATE INDEX "workspace_users_connector_idx" ON "workspace_users" USING btree ("connector_id");--> statement-breakpoint
CREATE INDEX "workspace_files_connector_idx" ON "workspace_files" USING btree ("connector_id");--> statement-breakpoint
CREATE INDEX "workspace_drives_connector_idx" ON "workspace_drives" USING btree ("connector_id");
