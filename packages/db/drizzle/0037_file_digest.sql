-- Each file's digest of the rows a snapshot wrote for it (workspace_files.digest): a full rescan
-- compares it in memory and leaves unchanged files alone. Nullable, no default: no table rewrite.
ALTER TABLE "workspace_files" ADD COLUMN "digest" text;