import { index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";

export const FLOW_NODE_TYPES = ["user", "external", "file", "public_link", "shared_drive"] as const;
export type TFlowNodeType = (typeof FLOW_NODE_TYPES)[number];

// The external data-flow graph, derived per organization from the resource store whenever a snapshot is written or a trusted domain changes, so a
// page of the graph is an index range rather than a whole-workspace aggregation.
export const flowNodes = pgTable(
  "flow_nodes",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    type: text("type", { enum: FLOW_NODE_TYPES }).notNull(),
    label: text("label").notNull(),
    riskScore: integer("risk_score").notNull(),
    /** The user a file, public link or user node belongs to (filters). */
    ownerEmail: text("owner_email"),
    /** External domains a file or drive node reaches (filters). */
    domains: text("domains").array().notNull().default([]),
  },
  (t) => [
    primaryKey({ name: "flow_nodes_pk", columns: [t.orgId, t.id] }),
    index("flow_nodes_org_order_idx").on(t.orgId, t.riskScore, t.id),
    index("flow_nodes_org_owner_idx").on(t.orgId, t.ownerEmail),
  ],
);
