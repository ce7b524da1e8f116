import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { newId } from "./columns";
import { connectors } from "./connectors";

/**
 * How a permission reaches outside the owner: a public link, one external person, a whole
 * external domain, or someone inside the organization (its own domains).
 */
export const SHARING_TYPES = ["public", "external_user", "external_domain", "internal"] as const;
export type TSharingType = (typeof SHARING_TYPES)[number];

// Every permission and sharing link on every file of the snapshot (one row per grant).
export const workspacePermissions = pgTable(
  "workspace_permissions",
  {
    id: text("id")
      .notNull()
      .$defaultFn(() => newId("wsp")),
    // Denormalised from the connector (whose foreign key cascades): no per-row check on bulk loads.
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    /** workspace_files.id of the file (same snapshot). */
    fileId: text("file_id").notNull(),
    externalId: text("external_id").notNull(),
    sharingType: text("sharing_type", { enum: SHARING_TYPES }).notNull(),
    /** An e-mail, a domain, or `anyone` for a public link. */
    target: text("target").notNull(),
    /** owner, organizer, writer, commenter, reader. */
    role: text("role").notNull(),
    /** The outside domain a non-internal grant reaches (null for public links and internal grants). */
    targetDomain: text("target_domain"),
  },
  (t) => [
    // Partitioned by connector (migration 0020): a unique key must hold the partition key. Ids
    // are hashes of the connector and the source id, so `id` alone stays unique; it leads, so a
    // read by id alone is still an index lookup in each partition.
    primaryKey({ columns: [t.id, t.connectorId] }),
    index("workspace_permissions_org_type_idx").on(t.orgId, t.sharingType),
    index("workspace_permissions_file_idx").on(t.fileId),
    index("workspace_permissions_connector_idx").on(t.connectorId),
    // Who can open a file (packages/db/src/reach): the grants of a set of people or groups.
    index("workspace_permissions_connector_target_idx").on(t.connectorId, t.target),
  ],
);
