import { and, eq, isNull, lt } from "drizzle-orm";
import { idempotencyKeys, type Db } from "@posture/db";

import { IDEMPOTENCY_TTL_MS } from "@posture/platform";

export { IDEMPOTENCY_TTL_MS };

export type TIdempotencyRecord = {
  requestHash: string;
  statusCode: number | null;
  responseBody: unknown;
};

export type TClaim = { owned: true } | { owned: false; existing: TIdempotencyRecord };

/**
 * Claims (scope, key) for this request, or returns the record that already holds it. The insert
 * is the lock: of two concurrent first requests exactly one owns the key. An expired record is
 * taken over by a conditional update, so two late retries cannot both take it over.
 */
export async function claimKey(
  db: Db,
  scope: string,
  key: string,
  requestHash: string,
  now = new Date(),
  attempt = 0,
): Promise<TClaim> {
  const inserted = await db
    .insert(idempotencyKeys)
    .values({ scope, key, requestHash, createdAt: now })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (inserted.length > 0) return { owned: true };

  const cutoff = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
  const takenOver = await db
    .update(idempotencyKeys)
    .set({ requestHash, statusCode: null, responseBody: null, createdAt: now })
    .where(
      and(
        eq(idempotencyKeys.scope, scope),
        eq(idempotencyKeys.key, key),
        lt(idempotencyKeys.createdAt, cutoff),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  if (takenOver.length > 0) return { owned: true };

  const [row] = await db
    .select({
      requestHash: idempotencyKeys.requestHash,
      statusCode: idempotencyKeys.statusCode,
      responseBody: idempotencyKeys.responseBody,
    })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)))
    .limit(1);
  // Deleted between our insert and select (the first request failed): try to claim it again.
  if (!row) {
    if (attempt < 2) return claimKey(db, scope, key, requestHash, now, attempt + 1);
    return { owned: false, existing: { requestHash, statusCode: null, responseBody: null } };
  }
  return { owned: false, existing: row };
}

export async function completeKey(
  db: Db,
  scope: string,
  key: string,
  statusCode: number,
  responseBody: unknown,
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ statusCode, responseBody })
    .where(
      and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), isNull(idempotencyKeys.statusCode)),
    );
}

/** Forgets an in-flight key, so that a retry runs the request again. */
export async function releaseKey(db: Db, scope: string, key: string): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(
      and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), isNull(idempotencyKeys.statusCode)),
    );
}
