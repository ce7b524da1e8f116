import { startWorkers, type TJobRegistrySource } from "@posture/jobs";
import type { TLogger } from "@posture/platform";

export type TSchedulerOptions = {
  redisUrl: string;
  prefix: string;
  registry: TJobRegistrySource;
  concurrency: number;
  log: TLogger;
  queueName?: string;
};

export type TScheduler = {
  /** Stops taking jobs and resolves once the running ones have finished. */
  close: () => Promise<void>;
};

/**
 * The scheduler's work: BullMQ workers running the registry's handlers. Repeating schedules
 * (daily scans and sweeps) are upserted by whoever starts it, through the queue's scheduleRepeating.
 */
export function startScheduler(opts: TSchedulerOptions): TScheduler {
  const workers = startWorkers({
    redisUrl: opts.redisUrl,
    prefix: opts.prefix,
    registry: opts.registry,
    concurrency: opts.concurrency,
    log: opts.log,
    ...(opts.queueName ? { queueName: opts.queueName } : {}),
  });
  opts.log.info({ concurrency: opts.concurrency }, "job workers started");
  return { close: () => workers.close() };
}
