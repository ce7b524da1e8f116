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
    // seq, prev_hash and hash: set by the application for "hmac" rows (the trigger checks the
    // link), by the audit_log_chain trigger for "sha256" rows.
    seq: bigint("seq", { mode: "number" }).notNull().default(0),
    action: text("action").notNull(),
    target: text("target").notNull(),
    userId: text("user_id"),
    userEmail: text("user_email").notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    prevHash: text("prev_hash").notNull().default(""),
    hash: text("hash").notNull().default(""),
    // "hmac": linked and keyed by the application (HMAC-SHA256 with the server's audit key);
    // "sha256": chained by the trigger with the plain hash (rows from before 0006, or inserted
    // without the application). See packages/platform/src/audit-chain.ts.
    chain: text("chain", { enum: ["hmac", "sha256"] })
      .notNull()
      .default("sha256"),
  },
  (t) => [
    uniqueIndex("audit_log_org_seq_key").on(t.orgId, t.seq),
    // Ascending columns: a backward scan serves "newest first" (DESC) exactly.
    index("audit_log_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("audit_log_org_action_idx").on(t.orgId, t.action, t.seq),
  ],
);
