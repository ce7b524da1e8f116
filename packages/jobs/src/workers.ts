import { UnrecoverableError, Worker } from "bullmq";
import { metrics, type TLogger } from "@posture/platform";
import { DEFAULT_QUEUE_NAME } from "./bullmq";
import { decodeJobId } from "./job-id";
import { lazyRegistry, UnknownJobError, type TJobRegistrySource } from "./types";

export type TWorkersOptions = {
  redisUrl: string;
  prefix: string;
  queueName?: string;
  registry: TJobRegistrySource;
  /** Jobs run at once in this process. */
  concurrency?: number;
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
};

export type TWorkers = {
  /** Stops taking jobs and waits for the ones running here to finish. */
  close: () => Promise<void>;
};

export function startWorkers(opts: TWorkersOptions): TWorkers {
  const definition = lazyRegistry(opts.registry);
  const log = opts.log;

  const worker = new Worker(
    opts.queueName ?? DEFAULT_QUEUE_NAME,
    async (job) => {
      const def = definition(job.name);
      // Retrying cannot make a handler appear: fail for good.
      if (!def) throw new UnrecoverableError(new UnknownJobError(job.name).message);
      const end = metrics.jobDuration.startTimer({ job: job.name });
      try {
        const result = await def.handler(job.data, {
          jobId: decodeJobId(job.id ?? ""),
          attempt: job.attemptsMade + 1,
        });
        end({ outcome: "completed" });
        return result;
      } catch (err) {
        end({ outcome: "failed" });
        throw err;
      }
    },
    {
      prefix: opts.prefix,
      connection: { url: opts.redisUrl, maxRetriesPerRequest: null, connectTimeout: 2_000 },
      concurrency: opts.concurrency ?? 4,
      skipStalledCheck: false,
      lockDuration: opts.lockDurationMs ?? 30_000,
      stalledInterval: opts.stalledIntervalMs ?? 30_000,
      maxStalledCount: opts.maxStalledCount ?? 1,
    },
  );

  worker.on("error", (err) => log?.error({ err: err.message }, "job worker error"));
  worker.on("failed", (job, err) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1) || err instanceof UnrecoverableError;
    log?.warn(
      { job: job.name, jobId: job.id, attempt: job.attemptsMade, final, err: err.message },
      final ? "job failed" : "job failed; will retry",
    );
  });
  worker.on("stalled", (jobId) => log?.warn({ jobId }, "job stalled: its worker stopped; running it again"));
  worker.on("completed", (job) => log?.debug({ job: job.name, jobId: job.id }, "job completed"));

  let closing: Promise<void> | undefined;
  return {
    close: () => (closing ??= worker.close()),
  };
}
