-- Two indexes of workspace_files that no query reads: every view of files filters by organization
-- and searches (the trigram index) or orders by modification time (org_id, modified_at, id), and
-- the evidence counts read the whole organization's rows. Each cost a b-tree insert per file on
-- every first scan (a million at the largest tenants).
DROP INDEX "workspace_files_org_exposure_idx";--> statement-breakpoint
DROP INDEX "workspace_files_org_owner_idx";
