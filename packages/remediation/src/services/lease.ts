import { randomBytes } from "node:crypto";
import { and, eq, sql, type SQL } from "drizzle-orm";
import { remediations, type Db, type TRemediationStatus } from "@posture/db";

// One worker at a time changes a remediation's source: the apply or undo job takes the
// remediation's lease (a row in PostgreSQL, not in Redis, so that Redis restarting empty cannot
// hand it to a second worker), renews it while it runs, and every step's claim and outcome is
// written only under its fencing token. A worker that lost the lease stops before its next call
// to the source. docs/decisions.md, "Remediation: exactly once".

export type TLeaseOptions = {
  /** How long a lease lasts unless renewed: how soon a dead worker's remediation can be taken over. */
  ttlMs: number;
  /** How often the holder renews it. */
  renewEveryMs: number;
  /**
   * A call to the source starts only while the lease is known to last this much longer (by the
   * holder's own clock, from its last renewal): a call in flight ends before anyone may take over.
   */
  marginMs: number;
};

export const DEFAULT_LEASE: TLeaseOptions = { ttlMs: 120_000, renewEveryMs: 10_000, marginMs: 60_000 };

/** This worker no longer holds the remediation's lease: it stops and writes nothing more. */
export class LeaseLostError extends Error {
  constructor(remediationId: string, why: string) {
    super(`remediation ${remediationId}: lease lost (${why}); another worker carries it on`);
    this.name = "LeaseLostError";
  }
}

export type TLease = {
  remediationId: string;
  /** The fencing token: raised by every take-over, so an earlier holder's writes match no row. */
  token: number;
  owner: string;
  /** SQL true while this lease is the remediation's: part of each outcome write's WHERE. */
  held: () => SQL;
  /** SQL true while this lease is the remediation's and not expired: part of each step claim's WHERE. */
  live: () => SQL;
  /** Throws LeaseLostError unless the lease lasts `marginMs` more: checked before each call to the source. */
  check: () => void;
  /** Whether the database still names this lease the remediation's, live (after a claim matched no row). */
  stillHeld: () => Promise<boolean>;
  /** In a transaction whose outcome write matched no row: throws LeaseLostError unless the token is still ours. */
  assertHeldIn: (tx: Db) => Promise<void>;
  /** Stops renewing and frees the lease for the next worker (best effort: it expires anyway). */
  release: () => Promise<void>;
};

const heldSql = (id: string, token: number) =>
  sql`EXISTS (SELECT 1 FROM remediations r WHERE r.id = ${id} AND r.lease_token = ${token})`;
const liveSql = (id: string, token: number) =>
  sql`EXISTS (SELECT 1 FROM remediations r WHERE r.id = ${id} AND r.lease_token = ${token} AND r.lease_expires_at > now())`;

/**
 * Takes the remediation's lease when it is in `status` and no live lease holds it, atomically (one
 * UPDATE: of two workers racing, one matches the row). Returns null when another worker holds it.
 */
export async function takeLease(
  db: Db,
  remediationId: string,
  status: TRemediationStatus,
  opts: TLeaseOptions = DEFAULT_LEASE,
): Promise<TLease | null> {
  const owner = `${process.pid}-${randomBytes(6).toString("hex")}`;
  const asked = Date.now();
  const [row] = await db
    .update(remediations)
    .set({
      leaseOwner: owner,
      leaseToken: sql`${remediations.leaseToken} + 1`,
      leaseExpiresAt: sql`now() + ${opts.ttlMs}::int * interval '1 millisecond'`,
    })
    .where(
      and(
        eq(remediations.id, remediationId),
        eq(remediations.status, status),
        sql`(${remediations.leaseExpiresAt} IS NULL OR ${remediations.leaseExpiresAt} <= now())`,
      ),
    )
    .returning({ token: remediations.leaseToken });
  if (!row) return null;
  const token = row.token;
  // By this worker's clock, from before it asked: never later than the database's expiry.
  let validUntil = asked + opts.ttlMs;
  let lost: string | null = null;
  let renewing = false;

  const renew = async () => {
    if (renewing || lost) return;
    renewing = true;
    const at = Date.now();
    try {
      const renewed = await db
        .update(remediations)
        .set({ leaseExpiresAt: sql`now() + ${opts.ttlMs}::int * interval '1 millisecond'` })
        .where(and(eq(remediations.id, remediationId), eq(remediations.leaseToken, token)))
        .returning({ token: remediations.leaseToken });
      if (renewed.length === 0) lost = "taken over";
      else validUntil = at + opts.ttlMs;
    } catch {
      // The database did not answer: the lease runs out by the clock unless a later renewal lands.
    } finally {
      renewing = false;
    }
  };
  const timer = setInterval(() => void renew(), opts.renewEveryMs);
  timer.unref?.();

  return {
    remediationId,
    token,
    owner,
    held: () => heldSql(remediationId, token),
    live: () => liveSql(remediationId, token),
    check: () => {
      if (lost) throw new LeaseLostError(remediationId, lost);
      if (Date.now() + opts.marginMs > validUntil)
        throw new LeaseLostError(remediationId, "not renewed in time");
    },
    stillHeld: async () => {
      const [r] = await db
        .select({ id: remediations.id })
        .from(remediations)
        .where(and(eq(remediations.id, remediationId), liveSql(remediationId, token)));
      if (!r) lost = "taken over or expired";
      return !!r;
    },
    assertHeldIn: async (tx) => {
      const [r] = await tx
        .select({ token: remediations.leaseToken })
        .from(remediations)
        .where(eq(remediations.id, remediationId));
      if (r?.token === token) return;
      lost = "taken over";
      throw new LeaseLostError(remediationId, "outcome refused");
    },
    release: async () => {
      clearInterval(timer);
      lost ??= "released";
      await db
        .update(remediations)
        .set({ leaseOwner: null, leaseExpiresAt: null })
        .where(and(eq(remediations.id, remediationId), eq(remediations.leaseToken, token)))
        .catch(() => {});
    },
  };
}

/** Whether a remediation's lease is free (none, or expired): what the sweep re-queues. */
export const leaseFree = () =>
  sql`(${remediations.leaseExpiresAt} IS NULL OR ${remediations.leaseExpiresAt} <= now())`;
