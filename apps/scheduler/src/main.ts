import { createDb } from "@posture/db";
import { createBullQueue, type TJobRegistry } from "@posture/jobs";
import { createLogger, parseEncryptionKey } from "@posture/platform";
import { startPeriodicJobs } from "@posture/posture";
import { readEnv } from "./env";
import { buildJobRegistry } from "./registry";
import { startScheduler } from "./scheduler";

function readEnvOrExit() {
  try {
    return readEnv();
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

const env = readEnvOrExit();
const log = createLogger(env.LOG_LEVEL);

const db = createDb({ databaseUrl: env.DATABASE_URL });
await db.migrate();

// Handlers enqueue follow-up jobs through this queue, so the registry is read lazily, after it exists.
const jobs = createBullQueue({
  redisUrl: env.REDIS_URL,
  prefix: env.JOBS_PREFIX,
  registry: () => registry,
  onError: (err) => log.warn({ err: err.message }, "job queue redis error"),
});
const registry: TJobRegistry = buildJobRegistry({
  db: db.db,
  jobs,
  runtime: {
    encryptionKey: parseEncryptionKey(env.ENCRYPTION_KEY),
    publicUrl: env.PUBLIC_URL,
    webhookAllowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS === "true",
  },
  log,
});
const scheduler = startScheduler({
  redisUrl: env.REDIS_URL,
  prefix: env.JOBS_PREFIX,
  registry,
  concurrency: env.SCHEDULER_CONCURRENCY,
  log,
});
// Daily scans coming due and lost webhook deliveries are swept every few minutes; the schedule
// lives in Redis, so every replica upserting it at start-up leaves one.
await startPeriodicJobs(jobs);
log.info({ jobs: Object.keys(registry), prefix: env.JOBS_PREFIX }, "scheduler running");

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: finishing running jobs");
    // A job still running at the deadline is not lost: its lock lapses and another worker takes it.
    const force = setTimeout(() => {
      log.warn({}, "shutdown timed out; leaving running jobs to other workers");
      process.exit(1);
    }, env.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    (async () => {
      await scheduler.close();
      await jobs.close();
      await db.close();
    })().then(
      () => {
        log.info({}, "scheduler stopped");
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
