import { integer, pgTable, primaryKey, text, foreignKey } from "drizzle-orm/pg-core";
import { SEVERITIES } from "../severity";
import { tsColumn } from "./columns";
import { organizations } from "./organizations";

/**
 * Per organization, category and severity: how many findings are open (the posture score's whole
 * input). Written only by the triggers of migration 0023 on findings (statement-level, in the
 * writing transaction), like org_posture_summary: read it, do not maintain it. A what-if reads
 * these few rows instead of counting 171,000 open findings.
 */
export const orgFindingCounts = pgTable(
  "org_finding_counts",
  {
    orgId: text("org_id").notNull(),
    category: text("category").notNull(),
    severity: text("severity", { enum: SEVERITIES }).notNull(),
    open: integer("open").notNull().default(0),
    updatedAt: tsColumn("updated_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.category, t.severity] }),
    foreignKey({
      name: "org_finding_counts_org_id_fkey",
      columns: [t.orgId],
      foreignColumns: [organizations.id],
    }).onDelete("cascade"),
  ],
);
