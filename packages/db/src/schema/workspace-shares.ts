import { sql } from "drizzle-orm";
import { index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { connectors } from "./connectors";
import { SEVERITIES } from "../severity";

export const SHARE_TYPES = ["public", "external_user", "external_domain"] as const;
export type TShareType = (typeof SHARE_TYPES)[number];

/**
 * Sharing items: one row per file and way it leaves the organization (`<file id>|<type>`), the
 * rows of GET /api/sharing/items. `risk_rank` = severity rank × 1000 + the parts a trusted-domain
 * change cannot alter (sensitivity, audience, fan-out), so a re-rating rewrites only the thousands.
 */
export const workspaceShares = pgTable(
  "workspace_shares",
  {
    id: text("id").notNull(),
    // Denormalised from the connector (whose foreign key cascades): no per-row check on bulk loads.
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    fileId: text("file_id").notNull(),
    fileExternalId: text("file_external_id").notNull(),
    resourceName: text("resource_name").notNull(),
    ownerEmail: text("owner_email").notNull(),
    sharingType: text("sharing_type", { enum: SHARE_TYPES }).notNull(),
    target: text("target").notNull(),
    targetCount: integer("target_count").notNull(),
    targetDomains: text("target_domains").array().notNull().default([]),
    permission: text("permission").notNull(),
    sensitivity: text("sensitivity").notNull(),
    baseSeverity: text("base_severity", { enum: SEVERITIES }).notNull(),
    severity: text("severity", { enum: SEVERITIES }).notNull(),
    severityRank: integer("severity_rank").notNull(),
    riskRank: integer("risk_rank").notNull(),
    /** Set while an approval covers the item: it then leaves the risk ranking. */
    approvedUntil: tsColumn("approved_until"),
  },
  (t) => [
    // Partitioned by connector (migration 0020): a unique key must hold the partition key. Ids
    // are hashes of the connector and the source id, so `id` alone stays unique; it leads, so a
    // read by id alone is still an index lookup in each partition.
    primaryKey({ columns: [t.id, t.connectorId] }),
    index("workspace_shares_connector_idx").on(t.connectorId),
    index("workspace_shares_org_risk_idx").on(t.orgId, t.riskRank, t.id),
    index("workspace_shares_org_severity_idx").on(t.orgId, t.severityRank, t.id),
    index("workspace_shares_org_name_idx").on(t.orgId, t.resourceName, t.id),
    index("workspace_shares_org_owner_idx").on(t.orgId, t.ownerEmail, t.id),
    index("workspace_shares_org_target_idx").on(t.orgId, t.target, t.id),
    index("workspace_shares_org_approved_idx")
      .on(t.orgId)
      .where(sql`approved_until IS NOT NULL`),
    index("workspace_shares_org_type_risk_idx").on(t.orgId, t.sharingType, t.riskRank, t.id),
  ],
);
