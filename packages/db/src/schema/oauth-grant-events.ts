import { index, pgTable, text } from "drizzle-orm/pg-core";
import { idColumn, tsColumn } from "./columns";
import { connectors } from "./connectors";
import { organizations } from "./organizations";

export const GRANT_EVENT_KINDS = ["granted", "scopes_changed", "revoked"] as const;

// What changed about an app's grants from one scan to the next: the agent timeline's history.
export const oauthGrantEvents = pgTable(
  "oauth_grant_events",
  {
    id: idColumn("gev"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull(),
    grantExternalId: text("grant_external_id").notNull(),
    userEmail: text("user_email").notNull(),
    kind: text("kind", { enum: GRANT_EVENT_KINDS }).notNull(),
    scopes: text("scopes").array().notNull().default([]),
    previousScopes: text("previous_scopes").array().notNull().default([]),
    at: tsColumn("at").notNull(),
  },
  (t) => [index("oauth_grant_events_org_client_idx").on(t.orgId, t.clientId, t.at)],
);
