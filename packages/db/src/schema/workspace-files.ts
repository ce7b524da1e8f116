import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { newId, tsColumn } from "./columns";
import { connectors } from "./connectors";

/** Sensitivity from the file's name and labels: `high` (payroll, passwords, health…) down to `low`. */
export const SENSITIVITIES = ["high", "medium", "low"] as const;
export type TSensitivity = (typeof SENSITIVITIES)[number];

/** The widest audience any of a file's permissions reaches. */
export const EXPOSURES = ["public", "external", "internal", "private"] as const;
export type TExposure = (typeof EXPOSURES)[number];

export const workspaceFiles = pgTable(
  "workspace_files",
  {
    id: text("id")
      .notNull()
      .$defaultFn(() => newId("wsf")),
    // Denormalised from the connector (whose foreign key cascades): no per-row check on bulk loads.
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    name: text("name").notNull(),
    mimeType: text("mime_type").notNull(),
    ownerEmail: text("owner_email").notNull(),
    /** The shared drive's external id, null for a personal drive. */
    driveExternalId: text("drive_external_id"),
    sensitivity: text("sensitivity", { enum: SENSITIVITIES }).notNull(),
    labels: text("labels").array().notNull().default([]),
    exposure: text("exposure", { enum: EXPOSURES }).notNull(),
    externalPermissionCount: integer("external_permission_count").notNull().default(0),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull().default(0),
    modifiedAt: tsColumn("modified_at").notNull(),
    /**
     * Reach (issue 30): how many people can open the file, through links, direct grants, groups
     * (expanded once per scan) and drive membership; `reachOrgWide` when a link or grant reaches
     * everyone in the organization (then `reachPeople` is the tenant's people count).
     */
    reachPeople: integer("reach_people").notNull().default(0),
    reachOrgWide: boolean("reach_org_wide").notNull().default(false),
    /**
     * The hash of the rows a snapshot wrote for the file (this row, its permissions and sharing
     * items; `rowsDigest` in @posture/workspace): a full rescan that computes the same one leaves
     * them as they are without a query per file. NULL: unknown (written before migration 0037, or
     * changed since by a statement that does not re-derive the rows), so the next scan writes them.
     */
    digest: text("digest"),
  },
  (t) => [
    // Partitioned by connector (migration 0020): a unique key must hold the partition key. Ids
    // are hashes of the connector and the source id, so `id` alone stays unique; it leads, so a
    // read by id alone is still an index lookup in each partition.
    primaryKey({ columns: [t.id, t.connectorId] }),
    index("workspace_files_connector_idx").on(t.connectorId),
    index("workspace_files_org_order_idx").on(t.orgId, t.modifiedAt, t.id),
    // Who can open a file (packages/db/src/reach): the files a set of people own.
    index("workspace_files_connector_owner_idx").on(t.connectorId, t.ownerEmail),
    // The inventory search (migration 0008; pg_trgm).
    index("workspace_files_search_trgm").using(
      "gin",
      sql`(lower("name" || ' ' || "owner_email")) gin_trgm_ops`,
    ),
  ],
);
