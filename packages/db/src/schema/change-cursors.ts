import { jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { connectors } from "./connectors";
import { organizations } from "./organizations";

/**
 * Where a connector's file change feeds stood at its last completed scan (TChangeCursor of
 * @posture/connectors). Written in the transaction that persists that scan's findings, so the
 * cursor never runs ahead of the findings: a scan that dies leaves the previous one, and the
 * next scan re-reads the same changes.
 */
export const changeCursors = pgTable("change_cursors", {
  connectorId: text("connector_id")
    .primaryKey()
    .references(() => connectors.id, { onDelete: "cascade" }),
  orgId: text("org_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  /** The adapter that made the cursor; another source's cursor is never handed to a feed. */
  source: text("source").notNull(),
  feeds: jsonb("feeds").$type<Record<string, string>>().notNull(),
  /**
   * What the rules that judged the stored findings depended on besides the files (the internal
   * and trusted domains, the engine's version): when it changes, unchanged files would be judged
   * differently, so the next scan is a full one.
   */
  rulesKey: text("rules_key").notNull(),
  /** The scan that stored it. */
  scanId: text("scan_id").notNull(),
  updatedAt: tsColumn("updated_at").notNull(),
});
