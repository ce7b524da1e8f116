import { integer, pgTable, text, foreignKey } from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { organizations } from "./organizations";

/**
 * Per organization: the latest completed scan's posture score and the open findings per severity.
 * Written only by the triggers of migration 0012 on findings and scans (statement-level, in the
 * writing transaction), never by application code: read it, do not maintain it.
 */
export const orgPostureSummary = pgTable(
  "org_posture_summary",
  {
    orgId: text("org_id").primaryKey(),
    postureScore: integer("posture_score"),
    scoreCompletedAt: tsColumn("score_completed_at"),
    openCritical: integer("open_critical").notNull().default(0),
    openHigh: integer("open_high").notNull().default(0),
    openMedium: integer("open_medium").notNull().default(0),
    openLow: integer("open_low").notNull().default(0),
    updatedAt: tsColumn("updated_at").notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: "org_posture_summary_org_id_fkey",
      columns: [t.orgId],
      foreignColumns: [organizations.id],
    }).onDelete("cascade"),
  ],
);
