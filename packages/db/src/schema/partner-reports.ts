import { bigint, index, integer, pgTable, text, uniqueIndex, foreignKey } from "drizzle-orm/pg-core";
import { bytea } from "./bytea-column";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";

// Scheduled portfolio reports (WEEKLY / MONTHLY), built by the scheduler, one per period.
export const partnerReports = pgTable(
  "partner_reports",
  {
    id: idColumn("prp"),
    partnerOrgId: text("partner_org_id").notNull(),
    schedule: text("schedule", { enum: ["WEEKLY", "MONTHLY"] }).notNull(),
    periodStart: tsColumn("period_start").notNull(),
    periodEnd: tsColumn("period_end").notNull(),
    clientCount: integer("client_count").notNull(),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull(),
    pdf: bytea("pdf").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    // The job is idempotent: one report per partner, schedule and period.
    uniqueIndex("partner_reports_period_key").on(t.partnerOrgId, t.schedule, t.periodStart),
    index("partner_reports_partner_created_idx").on(t.partnerOrgId, t.createdAt),
    foreignKey({
      name: "partner_reports_partner_org_id_fkey",
      columns: [t.partnerOrgId],
      foreignColumns: [organizations.id],
    }).onDelete("cascade"),
  ],
);
