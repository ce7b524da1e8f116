import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn } from "./columns";

export const users = pgTable(
  "users",
  {
    id: idColumn("usr"),
    // Stored lower-cased; the unique index is the source of truth for "one account per address".
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email)],
);
