import { bigint, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, idColumn } from "./columns";
import { organizations } from "./organizations";

// Append-only (a trigger in the migrations refuses UPDATE, DELETE and TRUNCATE) and
// hash-chained per organization: hash = sha256(prev_hash || canonical row), seq is gapless.
export const auditLog = pgTable(
  "audit_log",
  {
    id: idColumn("aud"),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    // seq, prev_hash and hash are filled by the audit_log_chain trigger, never by the caller.
    seq: bigint("seq", { mode: "number" }).notNull().default(0),
    action: text("action").notNull(),
    target: text("target").notNull(),
    userId: text("user_id"),
    userEmail: text("user_email").notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    prevHash: text("prev_hash").notNull().default(""),
    hash: text("hash").notNull().default(""),
  },
  (t) => [
    uniqueIndex("audit_log_org_seq_key").on(t.orgId, t.seq),
    // Ascending columns: a backward scan serves "newest first" (DESC) exactly.
    index("audit_log_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("audit_log_org_action_idx").on(t.orgId, t.action, t.seq),
  ],
);
