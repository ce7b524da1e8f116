import { organizations, signInFailures, type Db } from "@posture/db";
import { asUnnamedWrite, audit, type TDataWrites, type TLogger } from "@posture/platform";
import { asc, eq, inArray } from "drizzle-orm";

/**
 * Failed sign-ins. Both refusals — an address without an account, and a wrong password for one
 * that has — do the same work before the 401 leaves: one argon2id verification and this one
 * INSERT, with the same columns. The SIGN_IN_FAILED audit row of a known account (a transaction
 * under the organization's chain lock, about 8 ms) is appended afterwards from the row, which is
 * the durable record meanwhile: a process that stops in between loses nothing, the next drain
 * (the next failed sign-in anywhere, that user's next successful one, or a gateway start)
 * appends it. Rows of unknown addresses are only deleted.
 */
export type TSignInFailure = {
  email: string;
  /** The account's user and organization; null for an address without one. */
  userId: string | null;
  orgId: string | null;
  attemptedAt: Date;
};

export async function recordSignInFailure(db: Db, failure: TSignInFailure): Promise<void> {
  // Every column given, null or not: the same statement text on both paths.
  await db.insert(signInFailures).values({
    email: failure.email,
    userId: failure.userId,
    orgId: failure.orgId,
    attemptedAt: failure.attemptedAt,
  });
}

type TRow = typeof signInFailures.$inferSelect;

/** The audit row of one failure, in the caller's transaction (skipped when the organization is gone). */
async function appendAudit(tx: Db, row: TRow): Promise<void> {
  if (!row.orgId || !row.userId) return;
  const [org] = await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, row.orgId))
    .limit(1);
  if (!org) return;
  await audit(
    tx,
    { orgId: row.orgId, actor: { kind: "session", userId: row.userId, email: row.email } },
    { action: "SIGN_IN_FAILED", target: row.email, metadata: { attemptedAt: row.attemptedAt.toISOString() } },
  );
}

/**
 * Inside a successful sign-in's transaction, before its SIGN_IN row: the user's pending failures
 * first, so the chain keeps their order. FOR UPDATE waits for a drain that holds one of them.
 */
export async function appendPendingFailuresOf(tx: Db, userId: string): Promise<void> {
  const rows = await tx
    .select()
    .from(signInFailures)
    .where(eq(signInFailures.userId, userId))
    .orderBy(asc(signInFailures.attemptedAt), asc(signInFailures.id))
    .for("update");
  if (rows.length === 0) return;
  for (const row of rows) await appendAudit(tx, row);
  await tx.delete(signInFailures).where(
    inArray(
      signInFailures.id,
      rows.map((r) => r.id),
    ),
  );
}

/**
 * Appends the audit rows of recorded failures, oldest first, one transaction each (the row is
 * deleted in the same transaction as its audit row is written: exactly once). Replicas drain side
 * by side (SKIP LOCKED). Returns how many rows it handled.
 */
export async function drainSignInFailures(db: Db, max = 1_000): Promise<number> {
  let handled = 0;
  while (handled < max) {
    const more = await db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(signInFailures)
        .orderBy(asc(signInFailures.attemptedAt), asc(signInFailures.id))
        .limit(1)
        .for("update", { skipLocked: true });
      if (!row) return false;
      await appendAudit(tx, row);
      await tx.delete(signInFailures).where(eq(signInFailures.id, row.id));
      return true;
    });
    if (!more) break;
    handled++;
  }
  return handled;
}

// One drain at a time per process; a failure during one asks for another pass after it.
let running: Promise<void> | null = null;
let again = false;

/**
 * Starts a drain (call it once the response has been sent), unless one runs: then it runs again
 * after. The audit rows it appends are writes of their organizations, for the read caches
 * (data-epochs.ts).
 */
export function drainSoon(db: Db, log: TLogger, writes?: TDataWrites): void {
  if (running) {
    again = true;
    return;
  }
  running = Promise.resolve()
    .then(async () => {
      do {
        again = false;
        await asUnnamedWrite(writes, () => drainSignInFailures(db));
      } while (again);
    })
    .catch((err: unknown) => {
      // The rows stay: the next drain appends them.
      log.warn({ err: (err as Error).message }, "sign-in failures: audit rows not yet appended");
    })
    .finally(() => {
      running = null;
    });
}

/** Resolves when the drain in progress (if any) is done: for tests and shutdown. */
export function drainIdle(): Promise<void> {
  return running ?? Promise.resolve();
}
