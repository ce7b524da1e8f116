import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
} from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { connectors } from "./connectors";

// What AI assistants and agents can reach (issue 30, GET /api/exposure/ai), materialised per
// connector at the end of each of its scans (packages/db/src/reach/materialise.ts), so a request
// reads a few rows instead of computing reach over a million files. Each row carries the
// connector's store version it was computed from (`workspace_snapshots.scan_id` and
// `store_version`): a remediation that changes the store between scans moves the version, and a
// read then computes that connector live, exactly, until the next scan refreshes it.

/** Per connector and subject (an assistant id, `copilot` / `gemini`, or an agent id): its reach counts and worst files. */
export const aiReachSummaries = pgTable(
  "ai_reach_summaries",
  {
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    subject: text("subject").notNull(),
    /** `assistant` or `agent`. */
    kind: text("kind", { enum: ["assistant", "agent"] }).notNull(),
    /** Agents: their label, access (`application` / `delegated`) and OAuth client key. */
    label: text("label").notNull().default(""),
    access: text("access"),
    clientKey: text("client_key"),
    users: integer("users").notNull(),
    /** TReachCounts: total, sensitive, orgWide, bySensitivity, byExposure. */
    counts: jsonb("counts").$type<Record<string, unknown>>().notNull(),
    /** The worst files (TReachRow[]), in the reach page's order. */
    worst: jsonb("worst").$type<unknown[]>().notNull(),
    scanId: text("scan_id"),
    storeVersion: bigint("store_version", { mode: "number" }).notNull(),
    /**
     * A digest of the directory side of the computation (users and their assistants, groups,
     * shared drives' members, app grants; `aiReachInputsKey`): a scan that changed no file and
     * left it equal carries the rows to its store version instead of computing them again.
     */
    inputsKey: text("inputs_key"),
    computedAt: tsColumn("computed_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.connectorId, t.subject] }),
    index("ai_reach_summaries_org_idx").on(t.orgId),
  ],
);

/**
 * The files any assistant's licensed users can open, one row per file with the assistants that
 * reach it, in the files page's order (`sens_rank`: 0 high, 1 medium, 2 low; then reach, then
 * id), so a page at any offset is a walk of one index.
 */
export const aiReachFiles = pgTable(
  "ai_reach_files",
  {
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    fileId: text("file_id").notNull(),
    externalId: text("external_id").notNull(),
    /** The subjects that reach it: assistants (`copilot`, `gemini`) and delegated agents' ids. */
    assistants: text("assistants")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Some assistant reaches it (the files page without `assistant`); false: only delegated agents do. */
    anyAssistant: boolean("any_assistant").notNull().default(true),
    sensRank: smallint("sens_rank").notNull(),
    reachPeople: integer("reach_people").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.connectorId, t.fileId] }),
    index("ai_reach_files_page_idx").on(t.orgId, t.sensRank, t.reachPeople.desc(), t.fileId),
    index("ai_reach_files_external_idx").on(t.connectorId, t.externalId),
  ],
);
