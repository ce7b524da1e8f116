import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn, tsColumn } from "./columns";
import { connectors } from "./connectors";
import { organizations } from "./organizations";
import { SEVERITIES } from "../severity";

export const findings = pgTable(
  "findings",
  {
    id: idColumn("fnd"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    connectorType: text("connector_type").notNull(),
    // sha256(rule id + resource id): the same problem on the same resource is one finding forever.
    fingerprint: text("fingerprint").notNull(),
    ruleId: text("rule_id").notNull(),
    category: text("category").notNull(),
    severity: text("severity", { enum: SEVERITIES }).notNull(),
    // 4 = CRITICAL … 1 = LOW, so "most severe first" is an index scan.
    severityRank: integer("severity_rank").notNull(),
    title: text("title").notNull(),
    resourceId: text("resource_id").notNull(),
    resourceName: text("resource_name").notNull(),
    resourceType: text("resource_type").notNull(),
    // ACCEPTED: covered by an active sharing approval (leaves the open findings until it lapses).
    status: text("status", { enum: ["OPEN", "RESOLVED", "ACCEPTED"] })
      .notNull()
      .default("OPEN"),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    detectedAt: tsColumn("detected_at").notNull().defaultNow(),
    resolvedAt: tsColumn("resolved_at"),
    // The remediation whose step fixed it at the source (null: resolved by a scan).
    resolvedBy: text("resolved_by"),
    lastSeenScanId: text("last_seen_scan_id"),
  },
  (t) => [
    uniqueIndex("findings_connector_fingerprint_key").on(t.connectorId, t.fingerprint),
    // Read backwards: most severe, then newest, then id, all descending (GET /api/findings).
    index("findings_org_order_idx").on(t.orgId, t.status, t.severityRank, t.detectedAt, t.id),
    index("findings_org_detected_idx").on(t.orgId, t.detectedAt, t.id),
    // The open internal-exposure findings (GET /api/exposure/ai's tallies and quick wins, the
    // files page's severity filter): a few thousand entries among an organization's findings.
    index("findings_internal_open_idx")
      .on(t.orgId, t.ruleId, t.severityRank, t.id)
      .where(sql`status = 'OPEN' AND category = 'internal_exposure'`),
    index("findings_internal_open_resource_idx")
      .on(t.orgId, t.severity, t.connectorId, t.resourceId)
      .where(sql`status = 'OPEN' AND category = 'internal_exposure'`),
  ],
);
