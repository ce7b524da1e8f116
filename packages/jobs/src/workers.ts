import { DelayedError, UnrecoverableError, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { metrics, type TLogger } from "@posture/platform";
import { LEGACY_QUEUE_NAME } from "./bullmq";
import { decodeJobId } from "./job-id";
import { createOrgSlots, type TOrgSlots } from "./org-slots";
import { withinJobBound } from "./timeout";
import {
  DEFAULT_QUEUE_LIMITS,
  JOB_QUEUES,
  lazyRegistry,
  UnknownJobError,
  type TJobRegistrySource,
  type TQueueLimits,
  type TQueueName,
} from "./types";

export type TWorkersOptions = {
  redisUrl: string;
  prefix: string;
  /**
   * One queue only (tests), with `concurrency` and `perOrg`. Unset: a worker per kind of work
   * (scans, deliveries, reports, maintenance) with `queues`' limits, plus one draining the legacy
   * single queue.
   */
  queueName?: string;
  registry: TJobRegistrySource;
  /** With `queueName`: jobs run at once in this process. */
  concurrency?: number;
  /** With `queueName`: at most this many of them for one organization. */
  perOrg?: number;
  /** Per kind of work: jobs at once in this process, and per organization (DEFAULT_QUEUE_LIMITS otherwise). */
  queues?: Partial<Record<TQueueName, TQueueLimits>>;
  log?: TLogger;
  /**
   * How long a job's lock lasts without renewal (renewed every half of it while the worker lives).
   * A worker that dies leaves its job locked this long; then another worker takes the job over.
   */
  lockDurationMs?: number;
  /**
   * How often to look for jobs whose worker died. BullMQ throttles this check queue-wide for one
   * interval, so every worker of a queue should use the same value.
   */
  stalledIntervalMs?: number;
  /** Times a job may be taken over from a dead worker before it fails instead (a job that kills its worker). */
  maxStalledCount?: number;
  /**
   * A job whose organization holds all its slots goes back to the queue, delayed about this long
   * (jittered), instead of waiting in a worker slot another organization could use.
   */
  orgRetryDelayMs?: number;
  /** How long an organization's slot outlives a worker that died holding it. */
  orgSlotTtlMs?: number;
};

export type TWorkers = {
  /** Stops taking jobs and waits for the ones running here to finish. */
  close: () => Promise<void>;
};

/** BullMQ workers for every queue (or the one named), running the registry's handlers. */
export function startWorkers(opts: TWorkersOptions): TWorkers {
  const plan: [string, TQueueLimits][] = opts.queueName
    ? [
        [
          opts.queueName,
          {
            concurrency: opts.concurrency ?? 4,
            ...(opts.perOrg !== undefined ? { perOrg: opts.perOrg } : {}),
          },
        ],
      ]
    : [
        ...JOB_QUEUES.map((q): [string, TQueueLimits] => [q, opts.queues?.[q] ?? DEFAULT_QUEUE_LIMITS[q]]),
        // Jobs an older release queued on its single queue still run, one at a time.
        [LEGACY_QUEUE_NAME, { concurrency: 1 }],
      ];
  // Per-organization slots are counted in Redis, shared by every worker process of the queue.
  const needsSlots = plan.some(([, l]) => l.perOrg !== undefined);
  const slotsRedis = needsSlots
    ? new Redis(opts.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2_000 })
    : undefined;
  slotsRedis?.on("error", (err) => opts.log?.warn({ err: err.message }, "org slots: redis error"));
  const workers = plan.map(([name, limits]) => startQueueWorker(opts, name, limits, slotsRedis));
  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= (async () => {
        await Promise.all(workers.map((w) => w.close()));
        slotsRedis?.disconnect();
      })()),
  };
}

function startQueueWorker(
  opts: TWorkersOptions,
  queueName: string,
  limits: TQueueLimits,
  slotsRedis: Redis | undefined,
): Worker {
  const definition = lazyRegistry(opts.registry);
  const log = opts.log;
  const slots: TOrgSlots | undefined =
    limits.perOrg !== undefined && slotsRedis
      ? createOrgSlots(slotsRedis, {
          key: (orgId) => `${opts.prefix}:${queueName}:org-slots:${orgId}`,
          cap: limits.perOrg,
          ttlMs: opts.orgSlotTtlMs ?? 30_000,
        })
      : undefined;
  const retryDelayMs = opts.orgRetryDelayMs ?? 1_000;

  async function run(job: Job, token: string | undefined) {
    const def = definition(job.name);
    // Retrying cannot make a handler appear: fail for good.
    if (!def) throw new UnrecoverableError(new UnknownJobError(job.name).message);
    const orgId = slots && def.orgOf ? await def.orgOf(job.data) : null;
    const slot = orgId && slots ? await slots.acquire(orgId, job.id ?? "") : undefined;
    if (slot === false) {
      // The organization has all its slots: back to the queue for a moment, the slot freed for
      // another organization's job. Not a failure: the job's tries are untouched.
      const delay = Math.round(retryDelayMs * (0.5 + Math.random()));
      await job.moveToDelayed(Date.now() + delay, token);
      throw new DelayedError();
    }
    const end = metrics.jobDuration.startTimer({ job: job.name });
    try {
      const work = def.handler(job.data, {
        jobId: decodeJobId(job.id ?? ""),
        attempt: job.attemptsMade + 1,
      });
      const result = await withinJobBound(job.name, def.timeoutMs, work);
      end({ outcome: "completed" });
      return result;
    } catch (err) {
      end({ outcome: "failed" });
      throw err;
    } finally {
      if (slot) await slot.release().catch(() => {});
    }
  }

  const worker = new Worker(queueName, run, {
    prefix: opts.prefix,
    connection: { url: opts.redisUrl, maxRetriesPerRequest: null, connectTimeout: 2_000 },
    concurrency: limits.concurrency,
    skipStalledCheck: false,
    lockDuration: opts.lockDurationMs ?? 30_000,
    stalledInterval: opts.stalledIntervalMs ?? 30_000,
    maxStalledCount: opts.maxStalledCount ?? 1,
  });

  worker.on("error", (err) => log?.error({ err: err.message, queue: queueName }, "job worker error"));
  worker.on("failed", (job, err) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1) || err instanceof UnrecoverableError;
    log?.warn(
      { job: job.name, jobId: job.id, queue: queueName, attempt: job.attemptsMade, final, err: err.message },
      final ? "job failed" : "job failed; will retry",
    );
  });
  worker.on("stalled", (jobId) =>
    log?.warn({ jobId, queue: queueName }, "job stalled: its worker stopped; running it again"),
  );
  worker.on("completed", (job) => log?.debug({ job: job.name, jobId: job.id }, "job completed"));
  return worker;
}
