import { boolean, index, integer, pgTable, text, uniqueIndex, foreignKey } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";

export const webhookSubscriptions = pgTable(
  "webhook_subscriptions",
  {
    id: idColumn("whk"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    events: text("events").array().notNull(),
    // Encrypted at rest like source credentials: it must be readable again to sign.
    secretEnc: text("secret_enc").notNull(),
    // After a rotation the previous secret still signs, beside the new one, until it expires.
    previousSecretEnc: text("previous_secret_enc"),
    previousSecretExpiresAt: tsColumn("previous_secret_expires_at"),
    /** A partner's subscription that also receives its managed clients' events (issue 17). */
    includeClients: boolean("include_clients").notNull().default(false),
    status: text("status", { enum: ["active", "disabled"] })
      .notNull()
      .default("active"),
    disabledReason: text("disabled_reason"),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_subscriptions_org_idx").on(t.orgId)],
);

// One row per event emitted by the organization: the id is the delivery id receivers dedupe on.
export const events = pgTable(
  "events",
  {
    id: idColumn("evt"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    data: text("data").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("events_org_idx").on(t.orgId, t.createdAt)],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: idColumn("dlv"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed", "abandoned"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    nextAttemptAt: tsColumn("next_attempt_at"),
    /** A manual redelivery is queued: the next claimed attempt is recorded as manual. */
    redeliveryRequested: boolean("redelivery_requested").notNull().default(false),
    deliveredAt: tsColumn("delivered_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_sub_event_key").on(t.subscriptionId, t.eventId),
    index("webhook_deliveries_sub_created_idx").on(t.subscriptionId, t.createdAt),
  ],
);

// Every attempt of a delivery, automatic or manual: the delivery row keeps only the latest outcome.
export const webhookDeliveryAttempts = pgTable(
  "webhook_delivery_attempts",
  {
    id: idColumn("dat"),
    orgId: text("org_id").notNull(),
    deliveryId: text("delivery_id").notNull(),
    /** 1 for the first attempt; the delivery's `attempts` counter when this one was claimed. */
    attempt: integer("attempt").notNull(),
    /** Sent by POST /webhooks/{id}/deliveries/{deliveryId}/redeliver rather than by the schedule. */
    manual: boolean("manual").notNull().default(false),
    startedAt: tsColumn("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
  },
  (t) => [
    uniqueIndex("webhook_delivery_attempts_delivery_attempt_key").on(t.deliveryId, t.attempt),
    foreignKey({
      name: "webhook_delivery_attempts_org_id_fkey",
      columns: [t.orgId],
      foreignColumns: [organizations.id],
    }).onDelete("cascade"),
    foreignKey({
      name: "webhook_delivery_attempts_delivery_id_fkey",
      columns: [t.deliveryId],
      foreignColumns: [webhookDeliveries.id],
    }).onDelete("cascade"),
  ],
);
