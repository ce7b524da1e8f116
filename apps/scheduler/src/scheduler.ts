import { startWorkers, type TJobRegistrySource, type TQueueLimits, type TQueueName } from "@posture/jobs";
import type { TLogger } from "@posture/platform";

export type TSchedulerOptions = {
  redisUrl: string;
  prefix: string;
  registry: TJobRegistrySource;
  /** Per kind of work: workers in this process and per organization (the defaults otherwise). */
  queues?: Partial<Record<TQueueName, TQueueLimits>>;
  log: TLogger;
  /** One queue only, with `concurrency` workers (tests). */
  queueName?: string;
  concurrency?: number;
};

export type TScheduler = {
  /** Stops taking jobs and resolves once the running ones have finished. */
  close: () => Promise<void>;
};

/**
 * The scheduler's work: BullMQ workers running the registry's handlers, one set per kind of work
 * (scans, deliveries, reports, maintenance) so that none can hold another's workers. Repeating
 * schedules (daily scans and sweeps) are upserted by whoever starts it, through the queue's
 * scheduleRepeating.
 */
export function startScheduler(opts: TSchedulerOptions): TScheduler {
  const workers = startWorkers({
    redisUrl: opts.redisUrl,
    prefix: opts.prefix,
    registry: opts.registry,
    log: opts.log,
    ...(opts.queues ? { queues: opts.queues } : {}),
    ...(opts.queueName ? { queueName: opts.queueName } : {}),
    ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
  });
  opts.log.info({ queues: opts.queueName ?? opts.queues ?? "defaults" }, "job workers started");
  return { close: () => workers.close() };
}
