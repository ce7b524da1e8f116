import { and, asc, inArray, lt, sql } from "drizzle-orm";
import { webhookDeliveries, type Db } from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { DELIVER_JOB } from "../services/emit-event";

export const SWEEP_JOB = "webhook.sweep";

// A due delivery normally has a job on its way; one this overdue lost it (an enqueue that
// failed after commit, a worker that died mid-attempt).
const OVERDUE_MS = 60_000;
const BATCH = 500;

/** Re-queues open deliveries that are long overdue. Safe to run often: attempts are claimed atomically. */
export async function requeueOverdueDeliveries(db: Db, jobs: TJobQueue): Promise<number> {
  const rows = await db
    .select({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts })
    .from(webhookDeliveries)
    .where(
      and(
        inArray(webhookDeliveries.status, ["pending", "failed"]),
        // The database clock, as for every due-time comparison.
        lt(
          webhookDeliveries.nextAttemptAt,
          sql`now() - ${OVERDUE_MS / 1000}::double precision * interval '1 second'`,
        ),
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(BATCH);
  // The minute bucket keeps the job id fresh: a queue that remembers a failed job's id must
  // not block this delivery forever.
  const bucket = Math.floor(Date.now() / OVERDUE_MS);
  for (const r of rows) {
    await jobs.enqueue(DELIVER_JOB, { deliveryId: r.id }, { jobId: `${r.id}-${r.attempts + 1}-s${bucket}` });
  }
  return rows.length;
}
