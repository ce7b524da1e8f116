import { date, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";

/** The metrics behaviour analytics baselines: activity kinds folded into four counts (plus logins). */
export const ACTIVITY_METRICS = [
  "external_shares",
  "resource_accesses",
  "oauth_grants",
  "deletions",
  "logins",
] as const;
export type TActivityMetric = (typeof ACTIVITY_METRICS)[number];

// activity_events summed per principal, metric and ISO week (`week` is the Monday, UTC): what
// baselines, anomalies and the heatmap read, so a million raw events are scanned once per refresh.
export const activityWeekly = pgTable(
  "activity_weekly",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    principal: text("principal").notNull(),
    metric: text("metric", { enum: ACTIVITY_METRICS }).notNull(),
    week: date("week", { mode: "string" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.principal, t.metric, t.week] })],
);
