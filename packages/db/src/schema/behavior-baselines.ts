import { index, integer, pgTable, primaryKey, real, text } from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { organizations } from "./organizations";

/**
 * A principal's learned weekly behaviour, robust to outliers: the median of each metric over the
 * learning window and its scale (1.4826 × MAD, floored). `source` says whose history it is:
 * `self` once the principal has enough weeks, `organization` (everyone's weeks) before that.
 */
export const behaviorBaselines = pgTable(
  "behavior_baselines",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    principal: text("principal").notNull(),
    periodsLearned: integer("periods_learned").notNull(),
    source: text("source", { enum: ["self", "organization"] }).notNull(),
    externalShareMedian: real("external_share_median").notNull(),
    externalShareScale: real("external_share_scale").notNull(),
    resourceAccessMedian: real("resource_access_median").notNull(),
    resourceAccessScale: real("resource_access_scale").notNull(),
    oauthGrantMedian: real("oauth_grant_median").notNull(),
    oauthGrantScale: real("oauth_grant_scale").notNull(),
    /** Sum of the heatmap cells of the last 12 weeks: "riskiest first" is an index scan. */
    riskTotal: integer("risk_total").notNull().default(0),
    lastActiveAt: tsColumn("last_active_at"),
    computedAt: tsColumn("computed_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.principal] }),
    index("behavior_baselines_org_risk_idx").on(t.orgId, t.riskTotal, t.principal),
  ],
);

/** One heatmap cell: how far a principal's week strayed from their baseline, 0–100. */
export const behaviorWeeklyRisk = pgTable(
  "behavior_weekly_risk",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    principal: text("principal").notNull(),
    week: text("week").notNull(),
    risk: integer("risk").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.principal, t.week] })],
);
