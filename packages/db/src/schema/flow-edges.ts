import { index, pgTable, text } from "drizzle-orm/pg-core";
import { SEVERITIES } from "../severity";
import { organizations } from "./organizations";

export const FLOW_SCOPES = ["internal", "external", "public"] as const;

export const flowEdges = pgTable(
  "flow_edges",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    source: text("source").notNull(),
    target: text("target").notNull(),
    scope: text("scope", { enum: FLOW_SCOPES }).notNull(),
    severity: text("severity", { enum: SEVERITIES }).notNull(),
  },
  (t) => [index("flow_edges_org_source_idx").on(t.orgId, t.source)],
);
