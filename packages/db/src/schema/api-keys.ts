import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn, tsColumn } from "./columns";
import { organizations } from "./organizations";
import { users } from "./users";

export const apiKeys = pgTable(
  "api_keys",
  {
    id: idColumn("key"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    createdByUserId: text("created_by_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull(),
    keyPrefix: text("key_prefix").notNull(),
    createdAt: createdAt(),
    lastUsedAt: tsColumn("last_used_at"),
    expiresAt: tsColumn("expires_at"),
    revokedAt: tsColumn("revoked_at"),
    /**
     * What the key may do within its owner's role (`read`: GET only). NULL: no restriction, the
     * owner's full role — every key created before scopes existed, and any created without them.
     */
    scopes: text("scopes").array(),
  },
  (t) => [uniqueIndex("api_keys_key_hash_key").on(t.keyHash), index("api_keys_org_idx").on(t.orgId)],
);
