import type { TJobQueue } from "@posture/platform";
import { createBullQueue } from "./bullmq";
import { createInProcessQueue, type TInProcessOptions } from "./in-process";
import type { TJobRegistrySource } from "./types";

export * from "./types";
export { combineJobModules, periodicTasksOf, startPeriodicTasks, type TPeriodicOptions } from "./modules";
export { createInProcessQueue, type TInProcessOptions } from "./in-process";
export { createBullQueue, LEGACY_QUEUE_NAME, type TBullQueueOptions } from "./bullmq";
export { startWorkers, type TWorkers, type TWorkersOptions } from "./workers";
export { withTimeout } from "./timeout";
export { withDataWrites } from "./data-writes";

/** Default Redis key prefix of the job queue; the gateway and the scheduler must agree on it. */
export const DEFAULT_JOBS_PREFIX = "jobs";

export type TCreateJobQueueOptions = {
  /** Set: the durable BullMQ queue (workers run in the scheduler). Unset: jobs run in this process. */
  redisUrl?: string;
  prefix?: string;
  registry: TJobRegistrySource;
  onError?: (err: Error) => void;
  /** In-process only: per-queue limits (the scheduler's workers take theirs from its env). */
  queues?: TInProcessOptions["queues"];
};

/**
 * The one place that picks the queue. Build the registry after the queue when handlers need it:
 *
 *   const jobs = createJobQueue({ redisUrl, registry: () => registry });
 *   const registry = combineJobModules(JOB_MODULES, { db, jobs, runtime, log });
 */
export function createJobQueue(opts: TCreateJobQueueOptions): TJobQueue {
  if (!opts.redisUrl) return createInProcessQueue(opts.registry, opts.queues ? { queues: opts.queues } : {});
  return createBullQueue({
    redisUrl: opts.redisUrl,
    prefix: opts.prefix ?? DEFAULT_JOBS_PREFIX,
    registry: opts.registry,
    ...(opts.onError ? { onError: opts.onError } : {}),
  });
}
