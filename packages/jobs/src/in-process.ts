import type { TJobQueue } from "@posture/platform";
import { withTimeout } from "./timeout";
import { JobTimeoutError, lazyRegistry, UnknownJobError, type TJobRegistrySource } from "./types";

/**
 * The embedded default's queue: the same handlers as the BullMQ workers, run in this process
 * with the same retry and back-off rules. Jobs do not survive a restart here; that is what
 * REDIS_URL is for.
 */
export function createInProcessQueue(registry: TJobRegistrySource): TJobQueue {
  const definition = lazyRegistry(registry);
  const inFlight = new Map<string, Promise<unknown>>();
  const timers = new Map<NodeJS.Timeout, () => void>();
  let closed = false;
  let seq = 0;

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
      try {
        return await def.handler(data, { jobId, attempt });
      } catch (err) {
        if (attempt >= def.attempts || closed) throw err;
        await sleep(def.backoffMs * 2 ** (attempt - 1));
      }
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
    async enqueue(name, data, opts = {}) {
      // Fire and forget, like a real queue; failures after the last try are the handler's to record.
      start(name, data, opts.jobId ?? `local-${++seq}`, opts.delayMs ?? 0).catch(() => {});
    },
    async runAndWait<R>(name: string, data: unknown, opts: { jobId: string; timeoutMs: number }): Promise<R> {
      const job = start(name, data, opts.jobId, 0);
      return (await withTimeout(
        job,
        opts.timeoutMs,
        () => new JobTimeoutError(opts.jobId, opts.timeoutMs),
      )) as R;
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
