import { setTimeout as sleep } from "node:timers/promises";
import { Job, type Queue, type QueueEvents } from "bullmq";

/**
 * Settles with the job's result, or rejects with its failure reason. QueueEvents reads the events
 * stream from "now" once its first read is issued, so a job finishing in the instant before that is
 * missed; a slow poll of the job's state covers the gap. Gives up quietly after `timeoutMs`:
 * the caller owns the timeout error.
 */
export async function waitForJob(
  queue: Queue,
  events: QueueEvents,
  job: Job,
  timeoutMs: number,
): Promise<unknown> {
  const id = job.id;
  if (id === undefined) throw new Error("job has no id");
  const deadline = Date.now() + timeoutMs;
  let settled = false;

  const byEvent = job.waitUntilFinished(events, timeoutMs + 1_000);
  const byPolling = (async (): Promise<unknown> => {
    for (let pause = 250; !settled && Date.now() < deadline; pause = Math.min(pause * 2, 2_000)) {
      await sleep(pause);
      if (settled) break;
      const finished = await finishedJob(queue, id).catch(() => undefined);
      if (finished?.state === "completed") return finished.job.returnvalue;
      if (finished?.state === "failed") throw new Error(finished.job.failedReason);
    }
    return new Promise<never>(() => {});
  })();

  try {
    return await Promise.race([byEvent, byPolling]);
  } finally {
    settled = true;
    byEvent.catch(() => {});
    byPolling.catch(() => {});
  }
}

async function finishedJob(queue: Queue, id: string) {
  const state = await queue.getJobState(id);
  if (state !== "completed" && state !== "failed") return undefined;
  const job = await Job.fromId(queue, id);
  return job ? { state, job } : undefined;
}
