import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { asc, desc, eq, sql } from "drizzle-orm";
import { auditLog, queryRows, type Db } from "@posture/db";

/**
 * The audit chain is keyed: each row's `hash` is HMAC-SHA256(key, prev_hash ‖ row). The MAC is
 * computed here, in the application, inside the writing transaction and under the
 * organization's chain lock (the same advisory lock the trigger takes), so the key never reaches
 * the database: someone who can only write the database cannot produce a row, or a recomputed
 * chain, that verifies.
 */
export type TAuditKey = Buffer;

const GENESIS = "0".repeat(64);

/** AUDIT_HMAC_KEY when given (64 hex characters), else derived from ENCRYPTION_KEY with HKDF. */
export function deriveAuditKey(encryptionKey: Buffer, explicit?: string): TAuditKey {
  if (explicit) {
    if (!/^[0-9a-f]{64}$/i.test(explicit)) throw new Error("AUDIT_HMAC_KEY must be 64 hex characters");
    return Buffer.from(explicit, "hex");
  }
  return Buffer.from(hkdfSync("sha256", encryptionKey, Buffer.alloc(0), "posture audit chain v1", 32));
}

// The key the process writes with; set once at start (gateway, scheduler, cli). Kept here rather
// than passed to every caller so that `recordAudit(db, entry)` keeps its signature.
let processKey: TAuditKey | null = null;
export function setAuditKey(key: TAuditKey | null): void {
  processKey = key;
}
export function auditKey(): TAuditKey | null {
  return processKey;
}

/** JSON with sorted keys at every depth: what jsonb gives back is the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

type TChainFields = {
  prevHash: string;
  seq: number;
  orgId: string;
  action: string;
  target: string;
  userId: string | null;
  userEmail: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
};

export function auditRowMac(key: TAuditKey, r: TChainFields): string {
  const text = JSON.stringify([
    r.prevHash,
    String(r.seq),
    r.orgId,
    r.action,
    r.target,
    r.userId,
    r.userEmail,
    canonical(r.metadata),
    r.createdAt.toISOString(),
  ]);
  return createHmac("sha256", key).update(text).digest("hex");
}

export const lockAuditChain = (orgId: string) =>
  sql`select pg_advisory_xact_lock(hashtextextended(${`audit_log:${orgId}`}, 0))`;

export type TAuditInsert = Omit<TChainFields, "prevHash" | "seq" | "createdAt">;

/** Appends one keyed row; call inside a transaction (the lock is held until it ends). */
export async function appendKeyedAudit(tx: Db, key: TAuditKey, entry: TAuditInsert): Promise<void> {
  await tx.execute(lockAuditChain(entry.orgId));
  const [last] = await tx
    .select({ seq: auditLog.seq, hash: auditLog.hash })
    .from(auditLog)
    .where(eq(auditLog.orgId, entry.orgId))
    .orderBy(desc(auditLog.seq))
    .limit(1);
  // Millisecond precision: what the row stores is exactly what the MAC covered.
  const createdAt = new Date(Date.now());
  const row = { ...entry, prevHash: last?.hash ?? GENESIS, seq: (last?.seq ?? 0) + 1, createdAt };
  await tx.insert(auditLog).values({ ...row, chain: "hmac", hash: auditRowMac(key, row) });
}

export type TAuditVerification = {
  ok: boolean;
  /** Rows checked, in sequence order. */
  rows: number;
  /** Rows chained with the plain hash only: from before the keyed chain (0006) or written around the application. */
  unkeyedRows: number;
  /** The first row whose link, sequence or MAC does not hold; null when intact. */
  firstBadSeq: number | null;
  reason: string | null;
};

function safeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Verifies an organization's chain with the key. Every row must link to the one before it and
 * carry the next sequence number; keyed rows must carry the right MAC. Unkeyed (plain SHA-256)
 * rows verify only as a prefix: rows from before the keyed chain, protected from then on by the
 * first keyed row's MAC over their last hash. An unkeyed row after a keyed one, or a chain that
 * ends unkeyed while keyed rows are required, fails: that is what recomputing the plain chain
 * over altered rows leaves behind.
 */
export async function verifyAuditChain(
  db: Db,
  orgId: string,
  key: TAuditKey,
  opts: { requireKeyedTail?: boolean } = {},
): Promise<TAuditVerification> {
  const rows = await db.select().from(auditLog).where(eq(auditLog.orgId, orgId)).orderBy(asc(auditLog.seq));
  // The plain hashes are recomputed by the database's own function (the one that wrote them).
  const plain = await queryRows<{ seq: string; ok: boolean }>(
    db,
    sql`select seq::text as seq, hash = audit_log_row_hash(prev_hash, seq, org_id, action, target, user_id,
        user_email, metadata, created_at) as ok from audit_log where org_id = ${orgId} and chain = 'sha256'`,
  );
  const plainOk = new Map(plain.map((r) => [Number(r.seq), r.ok]));
  let prev = GENESIS;
  let unkeyed = 0;
  let seenKeyed = false;
  const bad = (seq: number, reason: string): TAuditVerification => ({
    ok: false,
    rows: rows.length,
    unkeyedRows: unkeyed,
    firstBadSeq: seq,
    reason,
  });
  for (const [i, r] of rows.entries()) {
    if (r.seq !== i + 1) return bad(r.seq, "sequence gap");
    if (r.prevHash !== prev) return bad(r.seq, "broken link to the previous row");
    if (r.chain === "hmac") {
      seenKeyed = true;
      const mac = auditRowMac(key, r);
      if (!safeEqualHex(mac, r.hash)) return bad(r.seq, "MAC does not match");
    } else {
      if (seenKeyed) return bad(r.seq, "unkeyed row after keyed rows");
      if (!plainOk.get(r.seq)) return bad(r.seq, "hash does not match");
      unkeyed++;
    }
    prev = r.hash;
  }
  const last = rows.at(-1);
  if (opts.requireKeyedTail && last && last.chain !== "hmac") {
    return bad(last.seq, "the chain does not end with a keyed row");
  }
  return { ok: true, rows: rows.length, unkeyedRows: unkeyed, firstBadSeq: null, reason: null };
}

/**
 * Whether `key` is the one the chains are written with: the newest keyed row (any organization)
 * must verify with it; true while no keyed row exists. A process about to write audit rows
 * checks this first, so that a wrong or missing ENCRYPTION_KEY / AUDIT_HMAC_KEY is refused
 * instead of silently breaking every chain it appends to.
 */
export async function auditKeyMatches(db: Db, key: TAuditKey): Promise<boolean> {
  const [last] = await db
    .select()
    .from(auditLog)
    .where(eq(auditLog.chain, "hmac"))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.seq))
    .limit(1);
  return !last || safeEqualHex(auditRowMac(key, last), last.hash);
}

/**
 * Closes every organization's unkeyed chain with a keyed row (action AUDIT_CHAIN_KEYED), so the
 * rows from before the keyed chain are covered by a MAC and a chain that later ends unkeyed is
 * evidence of tampering. Run at start; a no-op for chains that already end keyed.
 */
export async function sealUnkeyedAuditChains(db: Db, key: TAuditKey): Promise<number> {
  const open = await queryRows<{ org_id: string; chain: string }>(
    db,
    sql`select distinct on (org_id) org_id, chain from audit_log order by org_id, seq desc`,
  );
  let sealed = 0;
  for (const row of open) {
    if (row.chain === "hmac") continue;
    await db.transaction(async (tx) => {
      await tx.execute(lockAuditChain(row.org_id));
      const [last] = await tx
        .select({ chain: auditLog.chain })
        .from(auditLog)
        .where(eq(auditLog.orgId, row.org_id))
        .orderBy(desc(auditLog.seq))
        .limit(1);
      if (last?.chain === "hmac") return;
      await appendKeyedAudit(tx, key, {
        orgId: row.org_id,
        action: "AUDIT_CHAIN_KEYED",
        target: row.org_id,
        userId: null,
        userEmail: "system",
        metadata: {},
      });
      sealed++;
    });
  }
  return sealed;
}
