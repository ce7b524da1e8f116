import { boolean, pgTable, text, foreignKey } from "drizzle-orm/pg-core";
import { bytea } from "./bytea-column";
import { tsColumn } from "./columns";
import { organizations } from "./organizations";

export const REPORT_SCHEDULES = ["NONE", "WEEKLY", "MONTHLY"] as const;
export type TReportSchedule = (typeof REPORT_SCHEDULES)[number];

// A partner's own settings; the white-label theme of its reports and of its clients' reports.
export const partnerSettings = pgTable(
  "partner_settings",
  {
    orgId: text("org_id").primaryKey(),
    /** The name printed on reports; the organization's name until set. */
    name: text("name"),
    reportSchedule: text("report_schedule", { enum: REPORT_SCHEDULES }).notNull().default("NONE"),
    notifyUnhealthy: boolean("notify_unhealthy").notNull().default(false),
    logoUrl: text("logo_url"),
    /** The logo fetched once when logoUrl was set (PNG or JPEG, size-limited): reports never fetch. */
    logo: bytea("logo"),
    logoMime: text("logo_mime"),
    accentColor: text("accent_color"),
    updatedAt: tsColumn("updated_at").notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: "partner_settings_org_id_fkey",
      columns: [t.orgId],
      foreignColumns: [organizations.id],
    }).onDelete("cascade"),
  ],
);
