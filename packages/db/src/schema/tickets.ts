import { jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
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
    // The product's close in the tracker (comment + transition), once per ticket: a sweep claims
    // the row (close_claimed_at), calls the tracker, then sets closed_at with its audit row.
    closeClaimedAt: tsColumn("close_claimed_at"),
    closedAt: tsColumn("closed_at"),
    // What proved the fix, as named in the tracker comment: {remediationId, auditId} or {scanId}.
    closeProof: jsonb("close_proof").$type<Record<string, string>>(),
  },
  (t) => [uniqueIndex("tickets_finding_key").on(t.findingId)],
);

/** What a subject ticket is filed for: a quick-win group of the posture, or an incident. */
export const SUBJECT_TICKET_KINDS = ["quick_win", "incident"] as const;

/**
 * One ticket for a group of findings (a posture quick win, keyed by its action) or an incident.
 * The row is written (status CREATING) before the tracker is called, so the unique key turns a
 * concurrent second request into 409 instead of a second upstream issue.
 */
export const subjectTickets = pgTable(
  "subject_tickets",
  {
    id: idColumn("stk"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: SUBJECT_TICKET_KINDS }).notNull(),
    // The quick win's action (e.g. remove_public_link) or the incident's id.
    subject: text("subject").notNull(),
    // The findings the ticket lists when it was filed (a quick win's group, an incident's findings).
    findingIds: jsonb("finding_ids").$type<string[]>().notNull().default([]),
    provider: text("provider", { enum: TICKET_PROVIDERS }).notNull(),
    externalId: text("external_id").notNull(),
    url: text("url").notNull(),
    status: text("status").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("subject_tickets_org_kind_subject_key").on(t.orgId, t.kind, t.subject)],
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
