import { index, integer, jsonb, pgTable, text, foreignKey } from "drizzle-orm/pg-core";
import { createdAt, idColumn } from "./columns";
import { organizations } from "./organizations";

export const COMPLIANCE_FRAMEWORKS = ["soc2", "iso27001", "gdpr", "hipaa", "nist_csf"] as const;
export type TComplianceFramework = (typeof COMPLIANCE_FRAMEWORKS)[number];

// One evidence report (POST /api/compliance/reports): the counts and every control's status with
// the reason behind it, kept so a run can be fetched and compared later.
export const complianceRuns = pgTable(
  "compliance_runs",
  {
    id: idColumn("crn"),
    orgId: text("org_id").notNull(),
    framework: text("framework", { enum: COMPLIANCE_FRAMEWORKS }).notNull(),
    periodDays: integer("period_days").notNull(),
    satisfied: integer("satisfied").notNull(),
    partial: integer("partial").notNull(),
    gap: integer("gap").notNull(),
    controls: jsonb("controls").$type<Array<Record<string, unknown>>>().notNull(),
    requestedByUserId: text("requested_by_user_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("compliance_runs_org_created_idx").on(t.orgId, t.createdAt, t.id),
    foreignKey({
      name: "compliance_runs_org_id_fkey",
      columns: [t.orgId],
      foreignColumns: [organizations.id],
    }).onDelete("cascade"),
  ],
);
