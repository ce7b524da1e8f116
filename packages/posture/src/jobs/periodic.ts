import type { TScheduledJobQueue } from "@posture/jobs";
import type { TJobQueue } from "@posture/platform";
import { SWEEP_JOB as WEBHOOK_SWEEP_JOB } from "@posture/webhooks";
import { SCAN_SWEEP_JOB } from "../services/scan-runner";
import { PURGE_JOB } from "./registry";

const EVERY_MS = 5 * 60_000;

// Sweeps that keep the service moving without a request: daily scans coming due, webhook
// deliveries whose delayed job was lost (a crash between commit and enqueue), and housekeeping.
const PERIODIC = [
  { name: SCAN_SWEEP_JOB, schedulerId: "periodic-scan-sweep" },
  { name: WEBHOOK_SWEEP_JOB, schedulerId: "periodic-webhook-sweep" },
  { name: PURGE_JOB, schedulerId: "periodic-purge" },
] as const;

function isScheduled(jobs: TJobQueue): jobs is TScheduledJobQueue {
  return typeof (jobs as Partial<TScheduledJobQueue>).scheduleRepeating === "function";
}

/**
 * On the durable queue the schedule lives in Redis (replicas upserting it do not duplicate it);
 * in-process, a timer enqueues the same jobs. Returns a stop function.
 */
export async function startPeriodicJobs(jobs: TJobQueue, everyMs = EVERY_MS): Promise<() => void> {
  if (isScheduled(jobs)) {
    for (const p of PERIODIC)
      await jobs.scheduleRepeating(p.name, {}, { schedulerId: p.schedulerId, everyMs });
    return () => {};
  }
  const tick = () => {
    const bucket = Math.floor(Date.now() / everyMs);
    for (const p of PERIODIC)
      void jobs.enqueue(p.name, {}, { jobId: `${p.schedulerId}-${bucket}` }).catch(() => {});
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
