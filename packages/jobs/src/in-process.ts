import type { TJobQueue } from "@posture/platform";
import type { TJobRegistry } from "./types";

/**
 * The embedded default's queue: the same handlers as the BullMQ workers, run in this process
 * with the same retry and back-off rules. Jobs do not survive a restart here; that is what
 * REDIS_URL is for.
 */
export function createInProcessQueue(registry: TJobRegistry): TJobQueue {
  const inFlight = new Map<string, Promise<unknown>>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  let seq = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  async function execute(name: string, data: unknown, jobId: string, delayMs: number): Promise<unknown> {
    const def = registry[name];
    if (!def) throw new Error(`no handler for job ${name}`);
    if (delayMs > 0) await sleep(delayMs);
    for (let attempt = 1; ; attempt++) {
      try {
        return await def.handler(data, { jobId, attempt });
      } catch (err) {
        if (attempt >= def.attempts || closed) throw err;
        await sleep(def.backoffMs * 2 ** (attempt - 1));
      }
    }
  }

  function start(name: string, data: unknown, jobId: string, delayMs: number): Promise<unknown> {
    const existing = inFlight.get(jobId);
    if (existing) return existing;
    const p = execute(name, data, jobId, delayMs).finally(() => inFlight.delete(jobId));
    inFlight.set(jobId, p);
    return p;
  }

  return {
    async enqueue(name, data, opts = {}) {
      if (closed) throw new Error("queue closed");
      // Fire and forget, like a real queue; failures after the last try are the handler's to record.
      start(name, data, opts.jobId ?? `local-${++seq}`, opts.delayMs ?? 0).catch(() => {});
    },
    async runAndWait<R>(name: string, data: unknown, opts: { jobId: string; timeoutMs: number }): Promise<R> {
      if (closed) throw new Error("queue closed");
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`job ${opts.jobId} timed out`)), opts.timeoutMs);
      });
      try {
        return (await Promise.race([start(name, data, opts.jobId, 0), timeout])) as R;
      } finally {
        clearTimeout(timer);
      }
    },
    async ping() {},
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      // Let running handlers finish their current try.
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
