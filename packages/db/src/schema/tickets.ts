import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { findings } from "./findings";
import { organizations } from "./organizations";

export const TICKET_PROVIDERS = ["jira", "github", "linear"] as const;

export const tickets = pgTable(
  "tickets",
  {
    id: idColumn("tkt"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    findingId: text("finding_id")
      .notNull()
      .references(() => findings.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: TICKET_PROVIDERS }).notNull(),
    externalId: text("external_id").notNull(),
    url: text("url").notNull(),
    status: text("status").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("tickets_finding_key").on(t.findingId)],
);

export const ticketingIntegrations = pgTable("ticketing_integrations", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  provider: text("provider", { enum: TICKET_PROVIDERS }).notNull(),
  baseUrl: text("base_url").notNull(),
  project: text("project").notNull(),
  tokenEnc: text("token_enc").notNull(),
  // The tracker's webhooks come to /api/integrations/ticketing/events/{hookId}, signed with this secret.
  hookId: text("hook_id").unique(),
  webhookSecretEnc: text("webhook_secret_enc"),
  updatedAt: tsColumn("updated_at").notNull().defaultNow(),
});
