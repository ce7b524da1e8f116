import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";

/**
 * A scan's detections, staged while it reads its source and diffed against `findings` once it has
 * read everything (UNLOGGED in the migration: transient, re-read after a crash). One run of a scan
 * job writes under its own `runId`, so a retried attempt never reads a half-written earlier one.
 */
export const scanDetections = pgTable(
  "scan_detections",
  {
    scanId: text("scan_id").notNull(),
    runId: text("run_id").notNull(),
    /** The id the finding gets if it is new. */
    findingId: text("finding_id").notNull(),
    fingerprint: text("fingerprint").notNull(),
    ruleId: text("rule_id").notNull(),
    category: text("category").notNull(),
    severity: text("severity").notNull(),
    severityRank: integer("severity_rank").notNull(),
    title: text("title").notNull(),
    resourceId: text("resource_id").notNull(),
    resourceName: text("resource_name").notNull(),
    resourceType: text("resource_type").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index("scan_detections_run_idx").on(t.runId), index("scan_detections_scan_idx").on(t.scanId)],
);
