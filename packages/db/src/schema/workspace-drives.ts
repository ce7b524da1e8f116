import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { idColumn } from "./columns";
import { connectors } from "./connectors";

export type TDriveMember = { email: string; role: string; external: boolean };

// Shared drives (Google) / document libraries and SharePoint sites (Microsoft).
export const workspaceDrives = pgTable(
  "workspace_drives",
  {
    id: idColumn("wsd"),
    // Denormalised from the connector (whose foreign key cascades): no per-row check on bulk loads.
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    name: text("name").notNull(),
    members: jsonb("members").$type<TDriveMember[]>().notNull().default([]),
    memberCount: integer("member_count").notNull(),
    externalMemberCount: integer("external_member_count").notNull(),
    domainUsersOnly: boolean("domain_users_only").notNull(),
    driveMembersOnly: boolean("drive_members_only").notNull(),
    copyRequiresWriterPermission: boolean("copy_requires_writer_permission").notNull(),
    fileCount: integer("file_count").notNull(),
  },
  (t) => [
    index("workspace_drives_connector_idx").on(t.connectorId),
    index("workspace_drives_org_idx").on(t.orgId),
    // The inventory search (migration 0008; pg_trgm).
    index("workspace_drives_search_trgm").using("gin", sql`(lower("name")) gin_trgm_ops`),
  ],
);
