-- What a scan detected, staged while it reads its source so that no process holds a large
-- workspace's findings in memory: the scan streams detections here (in its snapshot transaction,
-- so they appear with the snapshot or not at all), then diffs them against the stored findings in
-- set-based statements and deletes them. UNLOGGED: transient rows a crash may lose, since a scan
-- that did not finish is re-read from its source anyway. `finding_id` is the id a detection gets
-- if it turns out to be new.
CREATE UNLOGGED TABLE "scan_detections" (
	"scan_id" text NOT NULL,
	"run_id" text NOT NULL,
	"finding_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"rule_id" text NOT NULL,
	"category" text NOT NULL,
	"severity" text NOT NULL,
	"severity_rank" integer NOT NULL,
	"title" text NOT NULL,
	"resource_id" text NOT NULL,
	"resource_name" text NOT NULL,
	"resource_type" text NOT NULL,
	"details" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "scan_detections_run_idx" ON "scan_detections" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "scan_detections_scan_idx" ON "scan_detections" USING btree ("scan_id");
