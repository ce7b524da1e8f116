import { Queue, QueueEvents, type JobsOptions } from "bullmq";
import { encodeJobId } from "./job-id";
import { withTimeout } from "./timeout";
import { waitForJob } from "./wait-for-job";
import {
  JOB_QUEUES,
  JobTimeoutError,
  lazyRegistry,
  queueOf,
  UnknownJobError,
  type TJobDefinition,
  type TJobRegistrySource,
  type TScheduledJobQueue,
} from "./types";

/**
 * The one queue every job shared before jobs were split by kind (scans, deliveries, reports,
 * maintenance). The scheduler still drains it, so jobs queued by an older release are not lost.
 */
export const LEGACY_QUEUE_NAME = "posture";

// Finished jobs are kept a while for inspection, then trimmed; failures longer than successes.
const KEEP_COMPLETED = { age: 24 * 3600, count: 1_000 };
const KEEP_FAILED = { age: 7 * 24 * 3600, count: 5_000 };

export type TBullQueueOptions = {
  redisUrl: string;
  /** Redis key prefix; tests use one of their own. */
  prefix: string;
  /** Every job on this one queue (tests); unset, each job goes to its definition's queue. */
  queueName?: string;
  registry: TJobRegistrySource;
  /** Bound on enqueue / ping / close talking to Redis, so a request never hangs on it. */
  redisTimeoutMs?: number;
  onError?: (err: Error) => void;
};

function jobOptions(def: TJobDefinition): JobsOptions {
  return {
    attempts: def.attempts,
    backoff: { type: "exponential", delay: def.backoffMs },
    removeOnComplete: KEEP_COMPLETED,
    removeOnFail: KEEP_FAILED,
  };
}

export function createBullQueue(opts: TBullQueueOptions): TScheduledJobQueue {
  const redisTimeoutMs = opts.redisTimeoutMs ?? 2_000;
  const onError = opts.onError ?? (() => {});
  const definition = lazyRegistry(opts.registry);

  // The producer runs on the request path: no offline queue and few retries, so a command fails
  // at once while Redis is away instead of piling up. BullMQ reconnects in the background.
  // One Queue per kind of work, opened on first use.
  const queues = new Map<string, Queue>();
  function queueNamed(name: string): Queue {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        prefix: opts.prefix,
        connection: {
          url: opts.redisUrl,
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          connectTimeout: 2_000,
        },
      });
      queue.on("error", onError);
      queues.set(name, queue);
    }
    return queue;
  }
  const queueFor = (def: TJobDefinition) => queueNamed(opts.queueName ?? queueOf(def));
  const allQueueNames = opts.queueName ? [opts.queueName] : [...JOB_QUEUES];

  // Only runAndWait needs events, and they hold a blocking connection of their own: opened on first use.
  const events = new Map<string, QueueEvents>();
  function queueEvents(name: string): QueueEvents {
    let e = events.get(name);
    if (!e) {
      e = new QueueEvents(name, {
        prefix: opts.prefix,
        connection: { url: opts.redisUrl, maxRetriesPerRequest: null, connectTimeout: 2_000 },
      });
      e.on("error", onError);
      events.set(name, e);
    }
    return e;
  }

  const redisCall = <T>(what: string, work: Promise<T>) =>
    withTimeout(work, redisTimeoutMs, () => new Error(`job queue: ${what} timed out (Redis unreachable?)`));

  function definitionOf(name: string): TJobDefinition {
    const def = definition(name);
    if (!def) throw new UnknownJobError(name);
    return def;
  }

  /**
   * BullMQ ignores an add whose id exists in any state, and it keeps finished jobs for a while.
   * The contract dedupes only queued or running jobs, so a finished one with the id is cleared first.
   */
  async function add(name: string, data: unknown, jobId: string | undefined, delayMs: number) {
    const def = definitionOf(name);
    const queue = queueFor(def);
    const id = jobId === undefined ? undefined : encodeJobId(jobId);
    if (id !== undefined) {
      const state = await queue.getJobState(id);
      if (state === "completed" || state === "failed") await queue.remove(id);
    }
    return queue.add(name, data, {
      ...jobOptions(def),
      ...(id !== undefined ? { jobId: id } : {}),
      ...(delayMs > 0 ? { delay: delayMs } : {}),
    });
  }

  let closing: Promise<void> | undefined;
  const waiters = new Set<() => void>();

  return {
    async enqueue(name, data, enqueueOpts = {}) {
      await redisCall("enqueue", add(name, data, enqueueOpts.jobId, enqueueOpts.delayMs ?? 0));
    },

    async runAndWait<R>(
      name: string,
      data: unknown,
      waitOpts: { jobId: string; timeoutMs: number },
    ): Promise<R> {
      const { jobId, timeoutMs } = waitOpts;
      const timeout = () => new JobTimeoutError(jobId, timeoutMs);
      const work = (async () => {
        const queue = queueFor(definitionOf(name));
        const events = queueEvents(queue.name);
        // Fails fast, like enqueue, when Redis is away: the caller learns the queue is down
        // rather than waiting out its whole timeout.
        const job = await redisCall("enqueue", add(name, data, jobId, 0));
        return (await waitForJob(queue, events, job, timeoutMs)) as R;
      })();
      // stopWaiting ends the wait early, as a timeout does; the job carries on in the workers.
      let stop: () => void = () => {};
      const stopped = new Promise<never>((_, reject) => (stop = () => reject(timeout())));
      stopped.catch(() => {});
      waiters.add(stop);
      try {
        return await withTimeout(Promise.race([work, stopped]), timeoutMs, timeout);
      } finally {
        waiters.delete(stop);
      }
    },

    stopWaiting() {
      for (const stop of waiters) stop();
    },

    async ping() {
      await redisCall(
        "ping",
        (async () => {
          // BullMQ's client abstraction has no PING; any one-key read is the same round trip.
          const queue = queueNamed(allQueueNames[0] ?? LEGACY_QUEUE_NAME);
          const client = await queue.client;
          await client.hexists(queue.toKey("meta"), "version");
        })(),
      );
    },

    async depth() {
      return redisCall(
        "depth",
        (async () => {
          const total: Record<string, number> = {};
          for (const name of allQueueNames) {
            const counts = await queueNamed(name).getJobCounts(
              "waiting",
              "active",
              "delayed",
              "prioritized",
              "failed",
              "completed",
            );
            for (const [state, n] of Object.entries(counts)) total[state] = (total[state] ?? 0) + n;
          }
          return total;
        })(),
      );
    },

    async scheduleRepeating(name, data, repeat) {
      const def = definitionOf(name);
      const every =
        "everyMs" in repeat ? { every: repeat.everyMs } : { pattern: repeat.pattern, tz: repeat.tz ?? "UTC" };
      await redisCall(
        "schedule",
        queueFor(def).upsertJobScheduler(encodeJobId(repeat.schedulerId), every, {
          name,
          data,
          opts: jobOptions(def),
        }),
      );
    },

    async hasSchedule(name, schedulerId) {
      const queue = queueFor(definitionOf(name));
      const found = await redisCall("schedule check", queue.getJobScheduler(encodeJobId(schedulerId)));
      return found !== undefined && found !== null;
    },

    async retireLegacySchedules() {
      if (opts.queueName) return 0;
      const legacy = queueNamed(LEGACY_QUEUE_NAME);
      const schedulers = await redisCall("legacy schedules", legacy.getJobSchedulers());
      for (const s of schedulers) {
        if (s.key) await redisCall("unschedule", legacy.removeJobScheduler(s.key));
      }
      return schedulers.length;
    },

    async unschedule(schedulerId) {
      await redisCall(
        "unschedule",
        Promise.all(allQueueNames.map((n) => queueNamed(n).removeJobScheduler(encodeJobId(schedulerId)))),
      );
    },

    close() {
      closing ??= (async () => {
        const closeOne = async (q: Queue | QueueEvents) => {
          // Never connected (Redis down): closing would wait for a connection; drop it instead.
          await withTimeout(q.close(), redisTimeoutMs, () => new Error("close timed out")).catch(() =>
            withTimeout(q.disconnect(), redisTimeoutMs, () => new Error("disconnect timed out")).catch(
              () => {},
            ),
          );
        };
        await Promise.all([...queues.values(), ...events.values()].map(closeOne));
      })();
      return closing;
    },
  };
}
