import { buildJobRegistry } from "@posture/composition/jobs";
import { createInProcessQueue, type TJobRegistry } from "@posture/jobs";
import type { Db } from "@posture/db";
import type { TJobQueue, TLogger, TRuntime } from "@posture/platform";

/** How long one queued job may run before the seed stops waiting for it (a scan of a small tenant takes seconds). */
const JOB_WAIT_MS = 5 * 60_000;

export type TSeedQueue = TJobQueue & {
  /** Waits until every job queued so far, and every job those queued, has finished. */
  drain: () => Promise<void>;
};

/**
 * The seed's own in-process queue, running every module's handlers as the service does (scans,
 * activity ingestion, behaviour refresh, remediation applies, evidence builds, webhooks). Its own,
 * so that the seed can wait for a scan's follow-up work to finish before the week is dated, and so
 * that the CLI, which has no queue, seeds exactly as a first start does. Delayed jobs (retries
 * after a back-off) are not waited for: they are left to the service's sweeps.
 */
export function createSeedQueue(deps: { db: Db; runtime: TRuntime; log: TLogger }): TSeedQueue {
  let registry: TJobRegistry | undefined;
  const pending = new Set<Promise<unknown>>();
  let seq = 0;
  const queue: TSeedQueue = {
    enqueue: async (name, data, opts = {}) => {
      if ((opts.delayMs ?? 0) > 0) return inner.enqueue(name, data, opts);
      const jobId = opts.jobId ?? `demo-seed-${++seq}`;
      const run = inner.runAndWait(name, data, { jobId, timeoutMs: JOB_WAIT_MS }).catch((err: unknown) => {
        deps.log.warn({ err, job: name }, "demo seed: a background job failed");
      });
      pending.add(run);
      void run.finally(() => pending.delete(run));
    },
    runAndWait: (name, data, opts) => inner.runAndWait(name, data, opts),
    ping: async () => {},
    close: () => inner.close(),
    drain: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
  const inner = createInProcessQueue(() => (registry ??= buildJobRegistry({ ...deps, jobs: queue })));
  return queue;
}
