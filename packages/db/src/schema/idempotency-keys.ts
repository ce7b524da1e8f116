import { integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    // Who sent it: "<orgId>:<credentialId>", so two tenants can reuse the same key safely.
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    // null while the first request is still in flight
    statusCode: integer("status_code"),
    responseBody: jsonb("response_body"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);
