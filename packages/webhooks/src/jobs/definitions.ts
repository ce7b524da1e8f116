import type { TJobModule, TJobRegistry } from "@posture/jobs";
import { z } from "zod";
import { DELIVER_JOB } from "../services/emit-event";
import { deliverWebhook, type TDeliverDeps } from "./deliver";
import { requeueOverdueDeliveries, SWEEP_JOB } from "./sweep";

export const ZDeliverJob = z.object({ deliveryId: z.string().min(1) });

/**
 * The webhook jobs, for the gateway's in-process queue and the scheduler's workers alike.
 * Delivery retries are scheduled by the handler itself (the ~3-day back-off, recorded in the
 * row); the queue's own retries only cover infrastructure errors before an attempt is claimed.
 */
export function webhookJobDefinitions(deps: TDeliverDeps): TJobRegistry {
  return {
    [DELIVER_JOB]: {
      handler: async (data) => deliverWebhook(deps, ZDeliverJob.parse(data).deliveryId),
      attempts: 5,
      backoffMs: 10_000,
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
