import { bigint, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { connectors } from "./connectors";

/** What a principal did: `share_external`, `file_access`, `download`, `login`, `oauth_grant`, `token`… */
export const activityEvents = pgTable(
  "activity_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    // Denormalised from the connector (whose foreign key cascades): no per-row check on bulk loads.
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    /** The source's event id: ingesting the same window twice stores each event once. */
    externalId: text("external_id").notNull(),
    /** The acting principal's e-mail (lower case). */
    principal: text("principal").notNull(),
    kind: text("kind").notNull(),
    at: tsColumn("at").notNull(),
    resourceId: text("resource_id"),
    /** The other side: an external e-mail or domain, an app's client id. */
    target: text("target"),
    count: integer("count").notNull().default(1),
  },
  (t) => [
    uniqueIndex("activity_events_connector_external_key").on(t.connectorId, t.externalId),
    index("activity_events_org_principal_at_idx").on(t.orgId, t.principal, t.at),
    index("activity_events_org_at_idx").on(t.orgId, t.at),
  ],
);
