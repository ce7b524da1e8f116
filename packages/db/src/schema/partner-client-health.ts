import { integer, pgTable, text, foreignKey } from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { organizations } from "./organizations";

// What the last health check saw of a managed organization, so client.unhealthy fires on a change.
export const partnerClientHealth = pgTable(
  "partner_client_health",
  {
    orgId: text("org_id").primaryKey(),
    lastScore: integer("last_score"),
    unhealthySources: text("unhealthy_sources").array().notNull().default([]),
    checkedAt: tsColumn("checked_at").notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: "partner_client_health_org_id_fkey",
      columns: [t.orgId],
      foreignColumns: [organizations.id],
    }).onDelete("cascade"),
  ],
);
