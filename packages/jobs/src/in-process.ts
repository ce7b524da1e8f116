import type { TJobQueue } from "@posture/platform";
import { withinJobBound, withTimeout } from "./timeout";
import {
  DEFAULT_QUEUE_LIMITS,
  JobTimeoutError,
  lazyRegistry,
  queueOf,
  UnknownJobError,
  type TJobDefinition,
  type TJobRegistrySource,
  type TQueueLimits,
  type TQueueName,
} from "./types";

/** A counting semaphore with a FIFO of waiters. */
class Slots {
  private held = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}
  async acquire(): Promise<() => void> {
    if (this.held >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; otherwise it is freed.
      if (next) next();
      else this.held -= 1;
    };
  }
  get idle() {
    return this.held === 0 && this.waiting.length === 0;
  }
}

export type TInProcessOptions = {
  /** Per kind of work: jobs at once, and per organization (DEFAULT_QUEUE_LIMITS otherwise). */
  queues?: Partial<Record<TQueueName, TQueueLimits>>;
};

/**
 * The embedded default's queue: the same handlers as the BullMQ workers, run in this process
 * with the same retry and back-off rules, and the same separation: each kind of work has its own
 * slots, and an organization may hold only its share of a queue's. Jobs do not survive a restart
 * here; that is what REDIS_URL is for.
 */
export function createInProcessQueue(registry: TJobRegistrySource, opts: TInProcessOptions = {}): TJobQueue {
  const definition = lazyRegistry(registry);
  const inFlight = new Map<string, Promise<unknown>>();
  const timers = new Map<NodeJS.Timeout, () => void>();
  const queueSlots = new Map<TQueueName, Slots>();
  const orgSlots = new Map<string, Slots>();
  const waiters = new Set<() => void>();
  let closed = false;
  let seq = 0;

  const limitsOf = (q: TQueueName) => opts.queues?.[q] ?? DEFAULT_QUEUE_LIMITS[q];
  function slotsOf(q: TQueueName): Slots {
    let s = queueSlots.get(q);
    if (!s) queueSlots.set(q, (s = new Slots(limitsOf(q).concurrency)));
    return s;
  }
  function orgSlotsOf(q: TQueueName, orgId: string, cap: number): Slots {
    const key = `${q}\u0000${orgId}`;
    let s = orgSlots.get(key);
    if (!s) orgSlots.set(key, (s = new Slots(cap)));
    return s;
  }

  /** An organization's slot first, then the queue's: a job over its organization's cap waits without holding one of the queue's. */
  async function acquire(def: TJobDefinition, data: unknown): Promise<() => void> {
    const q = queueOf(def);
    const cap = limitsOf(q).perOrg;
    const orgId = cap !== undefined && def.orgOf ? await def.orgOf(data) : null;
    const org = orgId && cap !== undefined ? orgSlotsOf(q, orgId, cap) : undefined;
    const releaseOrg = org ? await org.acquire() : () => {};
    const releaseQueue = await slotsOf(q).acquire();
    return () => {
      releaseQueue();
      releaseOrg();
      if (org?.idle && orgId) orgSlots.delete(`${q}\u0000${orgId}`);
    };
  }

  // Sleeps end early on close, so close() need not wait out a back-off or a delay.
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.set(t, resolve);
    });

  async function execute(name: string, data: unknown, jobId: string, delayMs: number): Promise<unknown> {
    const def = definition(name);
    if (!def) throw new UnknownJobError(name);
    if (delayMs > 0) await sleep(delayMs);
    for (let attempt = 1; ; attempt++) {
      if (closed) throw new Error(`queue closed before job ${jobId} ran`);
      const release = await acquire(def, data);
      if (closed) {
        release();
        throw new Error(`queue closed before job ${jobId} ran`);
      }
      try {
        const work = def.handler(data, { jobId, attempt });
        return await withinJobBound(name, def.timeoutMs, work);
      } catch (err) {
        if (attempt >= def.attempts || closed) throw err;
      } finally {
        release();
      }
      await sleep(def.backoffMs * 2 ** (attempt - 1));
    }
  }

  function start(name: string, data: unknown, jobId: string, delayMs: number): Promise<unknown> {
    if (closed) throw new Error("queue closed");
    if (!definition(name)) throw new UnknownJobError(name);
    const existing = inFlight.get(jobId);
    if (existing) return existing;
    const p = execute(name, data, jobId, delayMs).finally(() => inFlight.delete(jobId));
    inFlight.set(jobId, p);
    return p;
  }

  return {
    async enqueue(name, data, enqueueOpts = {}) {
      // Fire and forget, like a real queue; failures after the last try are the handler's to record.
      start(name, data, enqueueOpts.jobId ?? `local-${++seq}`, enqueueOpts.delayMs ?? 0).catch(() => {});
    },
    async runAndWait<R>(
      name: string,
      data: unknown,
      waitOpts: { jobId: string; timeoutMs: number },
    ): Promise<R> {
      const job = start(name, data, waitOpts.jobId, 0);
      const timeout = () => new JobTimeoutError(waitOpts.jobId, waitOpts.timeoutMs);
      // stopWaiting ends the wait early, as a timeout does; the job carries on.
      let stop: () => void = () => {};
      const stopped = new Promise<never>((_, reject) => (stop = () => reject(timeout())));
      stopped.catch(() => {});
      waiters.add(stop);
      try {
        return (await withTimeout(Promise.race([job, stopped]), waitOpts.timeoutMs, timeout)) as R;
      } finally {
        waiters.delete(stop);
      }
    },
    stopWaiting() {
      for (const stop of waiters) stop();
    },
    async settled(withinMs) {
      const deadline = Date.now() + withinMs;
      // A finishing job may queue the next (a scan its partner's refresh): wait until none is left.
      while (inFlight.size > 0 && Date.now() < deadline) {
        const left = deadline - Date.now();
        await withTimeout(
          Promise.allSettled([...inFlight.values()]),
          left,
          () => new Error("unsettled"),
        ).catch(() => {});
      }
    },
    async ping() {},
    async close() {
      closed = true;
      for (const [t, wake] of timers) {
        clearTimeout(t);
        wake();
      }
      timers.clear();
      // Let running handlers finish their current try.
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
