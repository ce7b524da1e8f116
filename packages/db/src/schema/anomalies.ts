import { index, integer, jsonb, pgTable, real, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { SEVERITIES } from "../severity";
import { organizations } from "./organizations";

export const ANOMALY_TYPES = [
  "sharing_spike",
  "bulk_access",
  "dormant_reactivation",
  "oauth_burst",
  "mass_deletion",
] as const;
export type TAnomalyType = (typeof ANOMALY_TYPES)[number];

// One row per principal, type and window (an ISO week, `2026-W47`): a recomputation updates it
// in place, so the same burst is never reported twice.
export const anomalies = pgTable(
  "anomalies",
  {
    id: idColumn("anm"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    principal: text("principal").notNull(),
    type: text("type", { enum: ANOMALY_TYPES }).notNull(),
    window: text("window").notNull(),
    severity: text("severity", { enum: SEVERITIES }).notNull(),
    severityRank: integer("severity_rank").notNull(),
    confidence: real("confidence").notNull(),
    /** When the behaviour crossed the threshold (or the dormant account came back). */
    at: tsColumn("at").notNull(),
    observed: integer("observed").notNull(),
    expected: real("expected").notNull(),
    periodsLearned: integer("periods_learned").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    detectedAt: createdAt(),
  },
  (t) => [
    uniqueIndex("anomalies_org_principal_type_window_key").on(t.orgId, t.principal, t.type, t.window),
    index("anomalies_org_at_idx").on(t.orgId, t.at, t.id),
  ],
);
