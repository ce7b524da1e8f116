import { eq } from "drizzle-orm";
import { webhookDeliveries, type Db } from "@posture/db";
import type { TJobModule, TJobRegistry } from "@posture/jobs";
import { z } from "zod";
import { DELIVER_JOB } from "../services/emit-event";
import { DEFAULT_TIMEOUT_MS } from "../send";
import {
  deliverWebhook,
  RECORD_JOB,
  recordDeferredAttempt,
  type TDeliverDeps,
  type TRecordJob,
} from "./deliver";
import { requeueOverdueDeliveries, SWEEP_JOB } from "./sweep";

export const ZDeliverJob = z.object({ deliveryId: z.string().min(1) });

// Bound on a whole run of the delivery handler: its reads and claim, the attempt itself (10 s by
// the contract, name resolution included), and recording the outcome (10 s of retries against the
// database before the recording becomes a job of its own), with room for slow statements.
export const DELIVER_RUN_BOUND_MS = DEFAULT_TIMEOUT_MS + 10_000 + 15_000;

/**
 * The organization of a delivery, for the queue's per-organization cap. A delivery never changes
 * organization, so the answer is remembered (a job re-delayed at its organization's cap asks again).
 */
function deliveryOrgs(db: Db): (deliveryId: string) => Promise<string | null> {
  const known = new Map<string, string>();
  return async (deliveryId) => {
    const hit = known.get(deliveryId);
    if (hit) return hit;
    const [row] = await db
      .select({ orgId: webhookDeliveries.orgId })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, deliveryId));
    if (!row) return null;
    if (known.size >= 10_000) known.clear();
    known.set(deliveryId, row.orgId);
    return row.orgId;
  };
}
/**
 * The webhook jobs, for the gateway's in-process queue and the scheduler's workers alike.
 * Delivery retries are scheduled by the handler itself (the ~3-day back-off, recorded in the
 * row); the queue's own retries only cover infrastructure errors before an attempt is claimed.
 */
export function webhookJobDefinitions(deps: TDeliverDeps): TJobRegistry {
  const orgOfDelivery = deliveryOrgs(deps.db);
  return {
    [DELIVER_JOB]: {
      handler: async (data) => deliverWebhook(deps, ZDeliverJob.parse(data).deliveryId),
      attempts: 5,
      backoffMs: 10_000,
      // Deliveries have workers of their own: a slow receiver never holds a scan's worker, and one
      // organization's deliveries hold at most its share of the delivery workers.
      queue: "deliveries",
      orgOf: (data) => orgOfDelivery(ZDeliverJob.parse(data).deliveryId),
      timeoutMs: DELIVER_RUN_BOUND_MS,
    },
    [RECORD_JOB]: {
      handler: async (data) => recordDeferredAttempt(deps, data as TRecordJob),
      // Retried until the database is back: 5 s, 10 s, 20 s… about 85 minutes in all.
      attempts: 10,
      backoffMs: 5_000,
      queue: "deliveries",
      orgOf: (data) => orgOfDelivery((data as TRecordJob).deliveryId),
    },
    [SWEEP_JOB]: {
      handler: async () => ({ requeued: await requeueOverdueDeliveries(deps.db, deps.jobs) }),
      attempts: 1,
      backoffMs: 0,
    },
  };
}

// A delivery whose delayed job was lost (a crash between commit and enqueue) waits at most this long.
const SWEEP_EVERY_MS = 5 * 60_000;

/** The webhooks package's background work, for the apps to combine with the other modules. */
export const webhookJobs: TJobModule<TDeliverDeps> = {
  definitions: webhookJobDefinitions,
  periodic: [{ name: SWEEP_JOB, schedulerId: "periodic-webhook-sweep", everyMs: SWEEP_EVERY_MS }],
};
