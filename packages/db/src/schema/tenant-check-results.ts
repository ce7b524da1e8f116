import { index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { connectors } from "./connectors";
import { organizations } from "./organizations";

export const TENANT_CHECK_STATUSES = ["pass", "fail", "unavailable"] as const;
export type TTenantCheckStatus = (typeof TENANT_CHECK_STATUSES)[number];

/**
 * Each tenant-configuration check's latest result per connector (pass, fail, or unavailable when a
 * setting it reads could not be), replaced by every scan in its persist transaction: the evidence
 * the compliance controls mapped to a check read. Failing checks are also findings.
 */
export const tenantCheckResults = pgTable(
  "tenant_check_results",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    checkId: text("check_id").notNull(),
    /** The benchmark recommendation the check implements: `{name, version, id}`. */
    benchmark: jsonb("benchmark").$type<{ name: string; version: string; id: string }>().notNull(),
    status: text("status", { enum: TENANT_CHECK_STATUSES }).notNull(),
    /** The settings read, by key (unavailable ones absent). */
    observed: jsonb("observed").$type<Record<string, unknown>>().notNull().default({}),
    /** Why the check could not be evaluated (status `unavailable`). */
    reason: text("reason"),
    scanId: text("scan_id").notNull(),
    checkedAt: tsColumn("checked_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.connectorId, t.checkId] }),
    index("tenant_check_results_org_idx").on(t.orgId, t.checkId),
  ],
);
