import { createDb } from "@posture/db";
import { buildJobRegistry, startPeriodicJobs } from "@posture/composition/jobs";
import { createBullQueue, type TJobRegistry } from "@posture/jobs";
import {
  collectProcessMetrics,
  createLogger,
  createRedis,
  dataWrites,
  RateLimits,
  deriveAuditKey,
  observedGauge,
  ownMetrics,
  parseEncryptionKey,
  setAuditKey,
  deriveEvidenceSigningKey,
  evidenceSignerOf,
  parseEvidenceSigningKey,
  parsePreviousKeys,
  setEvidenceSigner,
  startMetricsServer,
} from "@posture/platform";
import { queueLimits, readEnv, shutdownGraceMs } from "./env";
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
const queues = queueLimits(env);
const workerSlots = Object.values(queues).reduce((n, q) => n + q.concurrency, 0);

const db = createDb({
  databaseUrl: env.DATABASE_URL,
  statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
  migrationDatabaseUrl: env.MIGRATION_DATABASE_URL,
  // A scan holds two connections (its snapshot transaction and its own reads); every other job
  // running at once (the activity ingestion a scan queues among them) may hold one.
  poolSize: Math.max(10, 2 * queues.scans.concurrency + (workerSlots - queues.scans.concurrency) + 2),
});
await db.migrate();
setAuditKey(deriveAuditKey(parseEncryptionKey(env.ENCRYPTION_KEY), env.AUDIT_HMAC_KEY));
// The key evidence packages are signed with: the gateway's (it publishes the JWKS).
setEvidenceSigner(
  evidenceSignerOf(
    env.EVIDENCE_SIGNING_KEY
      ? parseEvidenceSigningKey(env.EVIDENCE_SIGNING_KEY)
      : deriveEvidenceSigningKey(parseEncryptionKey(env.ENCRYPTION_KEY)),
    parsePreviousKeys(env.EVIDENCE_SIGNING_KEYS_PREVIOUS),
  ),
);

// Handlers enqueue follow-up jobs through this queue, so the registry is read lazily, after it exists.
const jobs = createBullQueue({
  redisUrl: env.REDIS_URL,
  prefix: env.JOBS_PREFIX,
  registry: () => registry,
  onError: (err) => log.warn({ err: err.message }, "job queue redis error"),
});
// Each job marks the data epochs of its organizations, which every gateway's read cache checks
// (data-epochs.ts): the keys are the rate limiter's, under the gateway's default prefix.
const redis = createRedis(env.REDIS_URL, (err) => log.warn({ err: err.message }, "data epochs: redis error"));
const writes = dataWrites({
  db: db.db,
  store: new RateLimits(redis, "rl"),
  onError: (err) => log.warn({ err: err.message }, "data epochs: a write could not be marked"),
});
const registry: TJobRegistry = buildJobRegistry({
  db: db.db,
  jobs,
  dataWrites: writes,
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
  queues,
  log,
});
// Every module's periodic tasks (daily scans coming due, lost webhook deliveries, housekeeping);
// the schedule lives in Redis, so every replica upserting it at start-up leaves one, and a
// self-check puts back what a Redis restarted empty lost.
const stopPeriodic = await startPeriodicJobs(jobs, {
  checkEveryMs: env.JOBS_SCHEDULE_CHECK_MS,
  onRestored: (ids) => log.warn({ schedulers: ids }, "periodic schedules were missing from Redis; restored"),
  onError: (err) => log.warn({ err: err.message }, "periodic schedule check failed; trying again later"),
});
// Job durations are recorded by the workers; queue depth and the pool are read at scrape time.
collectProcessMetrics();
observedGauge("job_queue_jobs", "Background jobs in the queue by state", ["state"], async () => {
  const depth = await jobs.depth?.().catch(() => undefined);
  return Object.entries(depth ?? {}).map(([state, value]) => ({ labels: { state }, value }));
});
observedGauge("db_pool_connections", "PostgreSQL pool connections by state", ["state"], async () => {
  const s = db.poolStats?.();
  return s ? Object.entries(s).map(([state, value]) => ({ labels: { state }, value })) : [];
});
const metricsServer =
  env.METRICS_PORT === undefined
    ? undefined
    : await startMetricsServer({
        port: env.METRICS_PORT,
        host: env.METRICS_HOST,
        ...(env.METRICS_TOKEN ? { token: env.METRICS_TOKEN } : {}),
        source: ownMetrics,
      });

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // Out before the orchestrator's kill (its grace, SHUTDOWN_GRACE_MS), less a margin.
    const graceMs = shutdownGraceMs(env);
    const deadlineMs = graceMs - Math.min(1_000, Math.floor(graceMs / 10));
    log.info({ signal, graceMs, deadlineMs }, "shutting down: finishing running jobs");
    // A job still running at the deadline is not lost: its lock lapses and another worker takes it.
    const force = setTimeout(() => {
      log.warn({}, "shutdown timed out; leaving running jobs to other workers");
      process.exit(1);
    }, deadlineMs);
    force.unref();
    (async () => {
      metricsServer?.close();
      stopPeriodic();
      await scheduler.close();
      await jobs.close();
      redis.disconnect();
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

// Only now, with the handlers in place: a SIGTERM before them would take Node's default and kill
// the process with running jobs and no exit code.
log.info({ jobs: Object.keys(registry), prefix: env.JOBS_PREFIX }, "scheduler running");
