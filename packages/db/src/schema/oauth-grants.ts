import { boolean, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn, tsColumn } from "./columns";
import { connectors } from "./connectors";
import { organizations } from "./organizations";

// Third-party apps, AI agents and service accounts seen on the last scan of a connector.
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: idColumn("grt"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    connectorId: text("connector_id")
      .notNull()
      .references(() => connectors.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    /** The app's OAuth client (one app, many users' grants). */
    clientId: text("client_id").notNull().default(""),
    label: text("label").notNull(),
    kind: text("kind", { enum: ["ai_agent", "oauth_app", "service_account"] }).notNull(),
    publisher: text("publisher").notNull(),
    isKnownPublisher: boolean("is_known_publisher").notNull(),
    scopes: text("scopes").array().notNull(),
    userEmail: text("user_email").notNull(),
    grantedAt: tsColumn("granted_at").notNull(),
    /** `application` (app-only: every file its permission covers) or `delegated` (issue 30). */
    access: text("access", { enum: ["application", "delegated"] })
      .notNull()
      .default("delegated"),
    /** Where an agent's classification came from (connectors' TAppGrant.agentSource); null: not an agent, or by name. */
    agentSource: text("agent_source"),
  },
  (t) => [
    uniqueIndex("oauth_grants_connector_external_key").on(t.connectorId, t.externalId),
    index("oauth_grants_org_granted_idx").on(t.orgId, t.grantedAt, t.id),
  ],
);
