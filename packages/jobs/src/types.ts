import type { TJobQueue } from "@posture/platform";

export type TJobContext = {
  /** The id the job was enqueued with (or one the queue made up), as the caller wrote it. */
  jobId: string;
  /** 1 for the first try; a job re-delivered after its worker died keeps its attempt number. */
  attempt: number;
};

/** A job handler must be idempotent: a retried or re-delivered job may run again. */
export type TJobHandler = (data: unknown, ctx: TJobContext) => Promise<unknown>;

/**
 * The kinds of background work, each on a queue of its own with its own workers, so that one kind
 * (a slow webhook receiver's deliveries) can never hold the workers of another (scans):
 * - `scans`: connector scans, manual and scheduled;
 * - `deliveries`: webhook delivery attempts (each bounded by the 10 s contract timeout);
 * - `reports`: evidence packages, PDFs, behaviour refreshes: heavier per-organization builds;
 * - `maintenance`: the periodic sweeps and housekeeping (the default of a job that names none).
 */
export const JOB_QUEUES = ["scans", "deliveries", "reports", "maintenance"] as const;
export type TQueueName = (typeof JOB_QUEUES)[number];
export const DEFAULT_JOB_QUEUE: TQueueName = "maintenance";

export type TJobDefinition = {
  handler: TJobHandler;
  /** Total tries, the first included. */
  attempts: number;
  /** Base of the exponential back-off between tries: backoffMs, 2·backoffMs, 4·backoffMs… */
  backoffMs: number;
  /** The queue (kind of work) the job runs on; default `maintenance`. */
  queue?: TQueueName;
  /**
   * The organization a job works for: when its queue caps work per organization (scans,
   * deliveries), no organization may hold more than its share of the queue's workers; on every
   * queue, its writes are that organization's for the read caches (data-writes.ts; a job that
   * names none and has no `orgId` in its data is a write of every organization).
   * null: not counted against any organization.
   */
  orgOf?: (data: unknown) => string | null | Promise<string | null>;
  /**
   * `"none"`: the job changes no organization's data itself — it only queues other jobs, which
   * mark their own — so it marks nothing for the read caches (data-writes.ts). Unset: it writes.
   */
  dataWrites?: "none";
  /**
   * Hard bound on one try of the handler. Past it the try fails (and is retried as any failure)
   * and its worker slot is freed, whatever the handler is still waiting for.
   */
  timeoutMs?: number;
};

/** The queue a job definition runs on. */
export const queueOf = (def: TJobDefinition): TQueueName => def.queue ?? DEFAULT_JOB_QUEUE;

/** Workers of one queue: jobs at once in a process, and at most this many of one organization. */
export type TQueueLimits = { concurrency: number; perOrg?: number };

/**
 * Defaults per queue (the scheduler's env overrides them, see docs/operations.md). Deliveries run
 * wide because each is mostly waiting on a receiver; one organization takes at most a quarter.
 */
export const DEFAULT_QUEUE_LIMITS: Record<TQueueName, TQueueLimits> = {
  scans: { concurrency: 4, perOrg: 2 },
  deliveries: { concurrency: 8, perOrg: 2 },
  reports: { concurrency: 2 },
  maintenance: { concurrency: 2 },
};

export type TJobRegistry = Record<string, TJobDefinition>;

/**
 * Handlers often need the queue itself (to enqueue follow-up jobs), so a registry is usually
 * built after its queue: pass `() => registry` and the queue reads it on first use.
 */
export type TJobRegistrySource = TJobRegistry | (() => TJobRegistry);

/** Looks job definitions up by name, reading a lazy registry once, on the first lookup. */
export function lazyRegistry(source: TJobRegistrySource): (name: string) => TJobDefinition | undefined {
  let resolved: TJobRegistry | undefined;
  return (name) => {
    resolved ??= typeof source === "function" ? source() : source;
    // Own properties only: a job named "constructor" must not find Object.prototype's.
    return Object.hasOwn(resolved, name) ? resolved[name] : undefined;
  };
}

/** Thrown by runAndWait when the job has not finished in time; the job itself carries on. */
export class JobTimeoutError extends Error {
  constructor(
    readonly jobId: string,
    timeoutMs: number,
  ) {
    super(`job ${jobId} did not finish within ${timeoutMs} ms`);
    this.name = "JobTimeoutError";
  }
}

export class UnknownJobError extends Error {
  constructor(readonly jobName: string) {
    super(`no handler registered for job "${jobName}"`);
    this.name = "UnknownJobError";
  }
}

export type TRepeatEvery = { schedulerId: string; everyMs: number };
/** A cron pattern (`0 3 * * *`), in `tz` (an IANA zone) or UTC when omitted. */
export type TRepeatPattern = { schedulerId: string; pattern: string; tz?: string };
export type TRepeatOptions = TRepeatEvery | TRepeatPattern;

/** The Redis-backed queue: TJobQueue plus repeating schedules, which only a durable queue can keep. */
export type TScheduledJobQueue = TJobQueue & {
  /** Creates or replaces the schedule with this id; replicas doing the same at start-up do not duplicate it. */
  scheduleRepeating: (name: string, data: unknown, opts: TRepeatOptions) => Promise<void>;
  /** Whether Redis holds the schedule with this id for this job (it is gone after Redis restarts empty). */
  hasSchedule: (name: string, schedulerId: string) => Promise<boolean>;
  unschedule: (schedulerId: string) => Promise<void>;
  /**
   * Removes the schedules an older release kept on its single queue (each periodic task now lives
   * on its own kind's queue); without this they would go on firing into the legacy queue.
   */
  retireLegacySchedules?: () => Promise<number>;
};

/** A sweep or housekeeping job the service runs on a schedule, without a request. */
export type TPeriodicTask = { name: string; schedulerId: string; everyMs: number };

/**
 * What each domain package exports about its background work: its job definitions (built from
 * the deps the apps hand it) and the periodic tasks to schedule. The apps combine the modules;
 * no package is everyone's hub.
 */
export type TJobModule<D> = {
  definitions: (deps: D) => TJobRegistry;
  periodic?: readonly TPeriodicTask[];
};
