import { lt } from "drizzle-orm";
import { idempotencyKeys, type Db } from "@posture/db";

/** How long a completed Idempotency-Key is remembered; older records count as absent. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Deletes records well past their TTL (twice it, so no request still relying on one is affected). */
export async function purgeExpiredIdempotencyKeys(db: Db, now = new Date()): Promise<number> {
  const deleted = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - 2 * IDEMPOTENCY_TTL_MS)))
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}
