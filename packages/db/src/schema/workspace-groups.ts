import { sql } from "drizzle-orm";
import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn } from "./columns";
import { connectors } from "./connectors";

/**
 * The directory's groups as the last scan read them (issue 30), replaced whole by every scan:
 * reach counts a grant to a group by its members (`member_emails` when the source listed them,
 * else `member_count`), and a group of at least the organization's threshold makes a grant to it
 * a `broad_group_grant`.
 */
export const workspaceGroups = pgTable(
  "workspace_groups",
  {
    id: idColumn("wsg"),
    // Denormalised from the connector (whose foreign key cascades), like the other workspace tables.
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    memberCount: integer("member_count").notNull(),
    /** Lower-cased; empty when only the count was read. */
    memberEmails: text("member_emails")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
  },
  (t) => [
    uniqueIndex("workspace_groups_connector_external_uq").on(t.connectorId, t.externalId),
    index("workspace_groups_org_email_idx").on(t.orgId, t.email),
    // Reach joins a connector's grants to its groups by address (packages/db/src/reach).
    index("workspace_groups_connector_email_idx").on(t.connectorId, t.email),
  ],
);
