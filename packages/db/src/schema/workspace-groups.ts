import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn } from "./columns";
import { connectors } from "./connectors";

/**
 * The directory's groups of a connector's latest scan, with their sizes (issue 30): a grant to a
 * group reaches `member_count` people; `member_emails` (lower-case) when the source listed them,
 * empty when only the count was read. Written by the scan (exposure-core); read by reach
 * (`packages/db/src/reach`).
 */
export const workspaceGroups = pgTable(
  "workspace_groups",
  {
    id: idColumn("wsg"),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    memberCount: integer("member_count").notNull(),
    memberEmails: text("member_emails").array().notNull().default([]),
  },
  (t) => [
    uniqueIndex("workspace_groups_connector_external_key").on(t.connectorId, t.externalId),
    index("workspace_groups_connector_email_idx").on(t.connectorId, t.email),
  ],
);
