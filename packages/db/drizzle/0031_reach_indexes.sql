CREATE INDEX "workspace_files_connector_owner_idx" ON "workspace_files" USING btree ("connector_id","owner_email");--> statement-breakpoint
CREATE INDEX "workspace_permissions_connector_target_idx" ON "workspace_permissions" USING btree ("connector_id","target");--> statement-breakpoint
CREATE INDEX "workspace_groups_connector_email_idx" ON "workspace_groups" USING btree ("connector_id","email");