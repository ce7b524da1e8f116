DROP INDEX "audit_log_org_created_idx";--> statement-breakpoint
DROP INDEX "audit_log_org_action_idx";--> statement-breakpoint
DROP INDEX "scans_org_completed_idx";--> statement-breakpoint
DROP INDEX "findings_org_order_idx";--> statement-breakpoint
DROP INDEX "findings_org_detected_idx";--> statement-breakpoint
DROP INDEX "oauth_grants_org_granted_idx";--> statement-breakpoint
CREATE INDEX "audit_log_org_created_idx" ON "audit_log" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "audit_log_org_action_idx" ON "audit_log" USING btree ("org_id","action","seq");--> statement-breakpoint
CREATE INDEX "scans_org_completed_idx" ON "scans" USING btree ("org_id","completed_at","id");--> statement-breakpoint
CREATE INDEX "findings_org_order_idx" ON "findings" USING btree ("org_id","status","severity_rank","detected_at","id");--> statement-breakpoint
CREATE INDEX "findings_org_detected_idx" ON "findings" USING btree ("org_id","detected_at","id");--> statement-breakpoint
CREATE INDEX "oauth_grants_org_granted_idx" ON "oauth_grants" USING btree ("org_id","granted_at","id");