import { index, pgTable, text } from "drizzle-orm/pg-core";
import { idColumn, tsColumn } from "./columns";

/**
 * Failed sign-ins, written in one statement whether or not the address belongs to an account, so
 * that both answers cost the same work (no timing oracle); turned into SIGN_IN_FAILED audit rows
 * after the response (packages/account/src/services/sign-in-failures.ts). A row is the durable
 * record until its audit row is appended: a process that stops in between loses nothing.
 * No foreign keys, deliberately: checking them would make a known account's insert do more work
 * than an unknown one's. Rows of a user or organization deleted meanwhile are dropped.
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    id: idColumn("sif"),
    email: text("email").notNull(),
    /** null: no account has this address (the row only equalises the work, and is dropped). */
    userId: text("user_id"),
    orgId: text("org_id"),
    attemptedAt: tsColumn("attempted_at").notNull().defaultNow(),
  },
  (t) => [
    index("sign_in_failures_attempted_idx").on(t.attemptedAt),
    index("sign_in_failures_user_idx").on(t.userId),
  ],
);
