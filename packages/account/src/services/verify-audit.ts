import { auditLog, type Db } from "@posture/db";
import { auditKey, iso, verifyAuditChain } from "@posture/platform";
import { and, eq } from "drizzle-orm";

export type TAuditBreak = { seq: number; id: string | null; createdAt: string | null; reason: string };

export type TAuditVerifyResult = {
  ok: boolean;
  /** Entries checked, in chain order (up to the break when broken). */
  entries: number;
  /** Of those, entries from before the keyed chain (plain SHA-256 links). */
  unkeyedEntries: number;
  brokenAt: TAuditBreak | null;
  verifiedAt: string;
};

/**
 * Recomputes the organization's whole audit chain with the process's key — the verifier the
 * evidence package runs (packages/platform/src/audit-chain.ts) — and names the first entry whose
 * link, sequence or MAC does not hold. Read-only: nothing is written, not even an audit row.
 */
export async function verifyAudit(db: Db, input: { orgId: string }): Promise<TAuditVerifyResult> {
  const key = auditKey();
  if (!key) throw new Error("audit key not set: every process sets it at start (setAuditKey)");
  const check = await verifyAuditChain(db, input.orgId, key, { requireKeyedTail: true });
  const verifiedAt = new Date().toISOString();
  if (check.ok || check.firstBadSeq === null) {
    return {
      ok: check.ok,
      entries: check.rows,
      unkeyedEntries: check.unkeyedRows,
      brokenAt: null,
      verifiedAt,
    };
  }
  const [row] = await db
    .select({ id: auditLog.id, createdAt: auditLog.createdAt })
    .from(auditLog)
    .where(and(eq(auditLog.orgId, input.orgId), eq(auditLog.seq, check.firstBadSeq)))
    .limit(1);
  return {
    ok: false,
    entries: check.rows,
    unkeyedEntries: check.unkeyedRows,
    brokenAt: {
      seq: check.firstBadSeq,
      id: row?.id ?? null,
      createdAt: iso(row?.createdAt),
      reason: check.reason ?? "chain does not verify",
    },
    verifiedAt,
  };
}
