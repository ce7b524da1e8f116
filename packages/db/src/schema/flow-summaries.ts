import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { tsColumn } from "./columns";
import { organizations } from "./organizations";

// The graph's summary and node count, computed with the graph (no count over it per page).
export const flowSummaries = pgTable("flow_summaries", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  totalNodes: integer("total_nodes").notNull(),
  externalFiles: integer("external_files").notNull(),
  publicLinks: integer("public_links").notNull(),
  sharedDrivesExposed: integer("shared_drives_exposed").notNull(),
  /** Mean score of the 20 riskiest nodes, 0 for an empty graph. */
  riskScore: integer("risk_score").notNull(),
  builtAt: tsColumn("built_at").notNull().defaultNow(),
});
