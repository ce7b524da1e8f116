import type { TJobQueue } from "@posture/platform";

export type TJobContext = {
  /** The id the job was enqueued with (or one the queue made up), as the caller wrote it. */
  jobId: string;
  /** 1 for the first try; a job re-delivered after its worker died keeps its attempt number. */
  attempt: number;
};

/** A job handler must be idempotent: a retried or re-delivered job may run again. */
export type TJobHandler = (data: unknown, ctx: TJobContext) => Promise<unknown>;

export type TJobDefinition = {
  handler: TJobHandler;
  /** Total tries, the first included. */
  attempts: number;
  /** Base of the exponential back-off between tries: backoffMs, 2·backoffMs, 4·backoffMs… */
  backoffMs: number;
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
  unschedule: (schedulerId: string) => Promise<void>;
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
