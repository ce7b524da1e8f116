import { bigint, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { connectors } from "./connectors";
import { organizations } from "./organizations";

// One row per connector: when its resource store snapshot was taken and how large it is, so that
// inventory totals and metrics never count a million rows per request.
export const workspaceSnapshots = pgTable(
  "workspace_snapshots",
  {
    connectorId: text("connector_id")
      .primaryKey()
      .references(() => connectors.id, { onDelete: "cascade" }),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    scanId: text("scan_id"),
    takenAt: tsColumn("taken_at").notNull(),
    users: integer("users").notNull(),
    files: integer("files").notNull(),
    drives: integer("drives").notNull(),
    permissions: integer("permissions").notNull(),
    shares: integer("shares").notNull(),
    grants: integer("grants").notNull(),
    /** Tallies the inventory metrics are summed from (TSnapshotMetrics). */
    metrics: jsonb("metrics").$type<Record<string, number>>().notNull().default({}),
    /**
     * Moves on every update of the row (trigger of migration 0033): a scan's commit and every
     * remediation's change to the store update it, so a summary computed from the store
     * (ai_reach_summaries) can tell it is stale. Written by the trigger only.
     */
    storeVersion: bigint("store_version", { mode: "number" }).notNull().default(0),
  },
  (t) => [index("workspace_snapshots_org_idx").on(t.orgId)],
);
