import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";
import { users } from "./users";

export const sessions = pgTable(
  "sessions",
  {
    id: idColumn("ses"),
    // SHA-256 of the cookie token: a database leak does not yield usable sessions.
    tokenHash: text("token_hash").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    lastSeenAt: tsColumn("last_seen_at").notNull().defaultNow(),
    expiresAt: tsColumn("expires_at").notNull(),
    revokedAt: tsColumn("revoked_at"),
  },
  (t) => [uniqueIndex("sessions_token_hash_key").on(t.tokenHash), index("sessions_user_idx").on(t.userId)],
);
