import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { idColumn, tsColumn } from "./columns";
import { connectors } from "./connectors";

// The resource store: the workspace a connector's latest completed scan read. Each scan replaces
// its connector's snapshot in one transaction, so readers never see half of one. Row ids are
// derived from (connector, external id), so they are stable across rescans.

export const USER_STATUSES = ["active", "suspended"] as const;

export const workspaceUsers = pgTable(
  "workspace_users",
  {
    id: idColumn("wsu"),
    // Denormalised from the connector (whose foreign key cascades): no per-row check on bulk loads.
    orgId: text("org_id").notNull(),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    isAdmin: boolean("is_admin").notNull(),
    /** Null: the source could not say (no licence or permission for MFA registration details). */
    mfaEnabled: boolean("mfa_enabled"),
    status: text("status", { enum: USER_STATUSES }).notNull(),
    lastLoginAt: tsColumn("last_login_at"),
    sourceCreatedAt: tsColumn("source_created_at"),
    // No sign-in for 90 days (or never, for an account older than that): decided at scan time.
    dormant: boolean("dormant").notNull(),
    /** Days since the last sign-in (or since creation when never signed in). */
    dormantDays: integer("dormant_days"),
    // Files this user owns that are shared outside the organization (public or external).
    externalSharesOwned: integer("external_shares_owned").notNull().default(0),
    /** The AI assistants the user is licensed for (`copilot`, `gemini`; issue 30). */
    assistants: text("assistants").array().notNull().default([]),
  },
  (t) => [
    index("workspace_users_connector_idx").on(t.connectorId),
    index("workspace_users_org_order_idx").on(t.orgId, t.email, t.id),
    // The inventory search (migration 0008; pg_trgm).
    index("workspace_users_search_trgm").using("gin", sql`(lower("email" || ' ' || "name")) gin_trgm_ops`),
  ],
);
