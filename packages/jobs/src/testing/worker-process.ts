// A worker in a process of its own, for tests that kill it mid-job (SIGKILL: no clean-up runs).
// Run with `node --import tsx worker-process.ts`; configured by the spawning test through env,
// which is why this file, unlike the app code, reads process.env directly.
import { createDb } from "@posture/db";
import { startWorkers } from "../workers";
import { recordingJob } from "./recording-job";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const db = createDb({ databaseUrl: required("DATABASE_URL"), poolSize: 2 });
startWorkers({
  redisUrl: required("REDIS_URL"),
  prefix: required("JOBS_PREFIX"),
  queueName: required("JOBS_QUEUE"),
  concurrency: 1,
  lockDurationMs: Number(required("LOCK_DURATION_MS")),
  // The stalled check is throttled queue-wide: every worker of a queue must use the same interval.
  stalledIntervalMs: Number(required("STALLED_INTERVAL_MS")),
  registry: {
    "record-effect": recordingJob(db.db, {
      worker: "doomed",
      sleepMs: 60_000,
      onStarted: (jobId) => process.stdout.write(`started ${jobId}\n`),
    }),
  },
});
process.stdout.write("worker up\n");
