import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import type { Logger } from "pino";
import { openDb, requestBound, resolveDataDir, type DbHandle } from "@posture/db";
import { drainSignInFailures } from "@posture/account";
import { buildJobRegistry, startPeriodicJobs } from "@posture/composition/jobs";
import { createJobQueue, startWorkers, type TJobRegistry, type TWorkers } from "@posture/jobs";
import {
  AccessGate,
  ALL_ORGANIZATIONS,
  asDataWrite,
  createLogger,
  dataWrites,
  createRedis,
  observedGauge,
  deriveAuditKey,
  parseEncryptionKey,
  sealUnkeyedAuditChains,
  setAuditKey,
  loadEvidenceSigner,
  setEvidenceSigner,
  waitForRedis,
  RateLimits,
  type TJobQueue,
  type TRuntime,
} from "@posture/platform";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Redis } from "ioredis";
import { resumeLeftScans } from "@posture/scans";
import { createApp } from "./app";
import { ReadCache } from "./read-cache";
import { trackConnections } from "./drain";
import type { TGatewayDeps } from "./deps";
import { parseTrustProxy, type TEnv } from "./env";

export type TGateway = {
  server: Server;
  url: string;
  deps: TGatewayDeps;
  /**
   * Stops accepting and waits for in-flight requests; with a plan (a SIGTERM's), within its grace.
   * Without one (tests), idle keep-alive connections are closed at once.
   */
  close: (plan?: TShutdownPlan) => Promise<void>;
};

/**
 * A shutdown within the grace the deployment declares (SHUTDOWN_GRACE_MS): at `handoffAtMs`
 * requests still waiting on a job stop waiting and answer (a sync: 202 with the scan id, the scan
 * going on as a queued job) and idle keep-alive connections are closed; at `deadlineMs` whatever
 * still runs in this process (jobs of the embedded queue, a worker's) is left to the next start or
 * another worker, and the process exits, before the orchestrator's kill.
 */
export type TShutdownPlan = { handoffAtMs: number; deadlineMs: number };

export function shutdownPlan(graceMs: number): TShutdownPlan {
  return {
    handoffAtMs: graceMs - Math.min(5_000, Math.floor(graceMs / 4)),
    deadlineMs: graceMs - Math.min(1_000, Math.floor(graceMs / 10)),
  };
}

/** Whether `work` settled within `ms` (it goes on either way). */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  if (!Number.isFinite(ms))
    return work.then(
      () => true,
      () => true,
    );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Embedded mode keeps its generated key beside its data; a server deployment must bring its own. */
function loadEncryptionKey(env: TEnv): Buffer {
  if (env.ENCRYPTION_KEY) return parseEncryptionKey(env.ENCRYPTION_KEY);
  if (env.DATABASE_URL) throw new Error("ENCRYPTION_KEY is required with DATABASE_URL");
  const dir = resolveDataDir(env.DATA_DIR);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "encryption.key");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600 });
  return parseEncryptionKey(readFileSync(file, "utf8").trim());
}

export type TStartOptions = {
  env: TEnv;
  log?: Logger;
  /** Reuse an open database (tests, or `pnpm start` sharing it with the scheduler). */
  db?: DbHandle;
  redis?: Redis | null;
  jobs?: TJobQueue;
  rateLimitPrefix?: string;
  /** Run jobs in this process even with REDIS_URL (tests; the embedded default does so anyway). */
  inProcessJobs?: boolean;
  /** `pnpm start`: also run the scheduler's workers and periodic sweeps in this process. */
  withScheduler?: boolean;
  /** Real-mode source API base URLs (tests point them at local fakes). */
  sourceEndpoints?: TRuntime["sourceEndpoints"];
};

export async function startGateway(opts: TStartOptions): Promise<TGateway> {
  const { env } = opts;
  const log = opts.log ?? createLogger(env.LOG_LEVEL);
  const ownsDb = !opts.db;
  const db =
    opts.db ??
    (await openDb(
      env.DATABASE_URL
        ? {
            databaseUrl: env.DATABASE_URL,
            statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
            ...(env.DB_QUERY_TIMEOUT_MS === undefined ? {} : { queryTimeoutMs: env.DB_QUERY_TIMEOUT_MS }),
            migrationDatabaseUrl: env.MIGRATION_DATABASE_URL,
          }
        : { dataDir: join(resolveDataDir(env.DATA_DIR), "pg") },
    ));
  if (ownsDb) await db.migrate();
  // Interactive requests give up on the database within DB_REQUEST_TIMEOUT_MS (503); downloads
  // and jobs run under the pool's own, longer bounds (docs/operations.md).
  const requestDb =
    env.DB_REQUEST_TIMEOUT_MS > 0 ? db.withBound(requestBound(env.DB_REQUEST_TIMEOUT_MS)) : db.db;
  const ownsRedis = opts.redis === undefined;
  const redis =
    opts.redis !== undefined
      ? opts.redis
      : env.REDIS_URL
        ? createRedis(env.REDIS_URL, (err) => log.warn({ err: err.message }, "redis error"))
        : null;
  if (redis && !(await waitForRedis(redis)))
    log.warn({}, "redis not reachable at start; continuing and reconnecting");
  const runtime = {
    encryptionKey: loadEncryptionKey(env),
    publicUrl: env.PUBLIC_URL ?? `http://localhost:${env.PORT}`,
    webhookAllowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS === "true",
    ...(opts.sourceEndpoints ? { sourceEndpoints: opts.sourceEndpoints } : {}),
  };
  // The audit chain's key (this process writes every audit row with it); chains of rows from
  // before the keyed chain are closed with a keyed row, see packages/platform/src/audit-chain.ts.
  const auditKey = deriveAuditKey(runtime.encryptionKey, env.AUDIT_HMAC_KEY);
  setAuditKey(auditKey);
  setEvidenceSigner(
    loadEvidenceSigner({
      signingKey: env.EVIDENCE_SIGNING_KEY,
      previousKeys: env.EVIDENCE_SIGNING_KEYS_PREVIOUS,
      databaseUrl: env.DATABASE_URL,
      dataDir: resolveDataDir(env.DATA_DIR),
      encryptionKey: runtime.encryptionKey,
    }),
  );
  const limits = new RateLimits(
    redis,
    opts.rateLimitPrefix ?? "rl",
    (err) => log.warn({ err: err.message }, "rate limit: redis unavailable, counting in memory"),
    { redisTimeoutMs: env.RATE_LIMIT_REDIS_TIMEOUT_MS },
  );
  // Every write of this process (mutations, jobs, the start-up work below) marks the data epochs
  // the read caches of every replica check (data-epochs.ts).
  const writes = dataWrites({
    db: requestDb,
    store: limits,
    onError: (err) => log.warn({ err: err.message }, "data epochs: a write could not be marked"),
  });
  await asDataWrite(writes, [ALL_ORGANIZATIONS], async () => {
    await sealUnkeyedAuditChains(db.db, auditKey);
    // Failed sign-ins a stopped process recorded but did not yet append to the audit chain.
    await drainSignInFailures(db.db).catch((err: unknown) =>
      log.warn({ err: (err as Error).message }, "sign-in failures: audit rows not yet appended"),
    );
  });
  // Handlers enqueue follow-up jobs, so the registry is resolved lazily, after the queue exists.
  let registry: TJobRegistry | undefined;
  const registryOf = (): TJobRegistry =>
    (registry ??= buildJobRegistry({ db: db.db, jobs, runtime, log, dataWrites: writes }));
  const jobs: TJobQueue =
    opts.jobs ??
    createJobQueue({
      ...(env.REDIS_URL && !opts.inProcessJobs ? { redisUrl: env.REDIS_URL } : {}),
      prefix: env.JOBS_PREFIX,
      registry: registryOf,
      onError: (err) => log.warn({ err: err.message }, "job queue error"),
    });
  let stopPeriodic = () => {};
  let workers: TWorkers | undefined;
  if (opts.withScheduler) {
    if (env.REDIS_URL && !opts.inProcessJobs && !opts.jobs) {
      workers = startWorkers({
        redisUrl: env.REDIS_URL,
        prefix: env.JOBS_PREFIX,
        registry: registryOf,
        log,
      });
    }
    stopPeriodic = await startPeriodicJobs(jobs);
  }
  // Readiness answers within the request bound too: a frozen database is "down", not a hang.
  // Embedded: work running on the database is its answer (readiness never waits behind a scan).
  const probes: TGatewayDeps["probes"] = {
    db: db.kind === "pglite" ? () => db.ping() : async () => void (await requestDb.execute(sql`select 1`)),
  };
  if (redis) probes.redis = async () => void (await redis.ping());

  const deps: TGatewayDeps = {
    db,
    requestDb,
    limits,
    dataWrites: writes,
    readCache: new ReadCache({ maxBytes: env.READ_CACHE_MAX_MB * 1024 * 1024, ttlMs: env.READ_CACHE_TTL_MS }),
    access: new AccessGate({ db: requestDb, limits, log }),
    jobs,
    runtime,
    log,
    probes,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    secureCookies: env.COOKIE_SECURE === "true",
    allowedOrigins: [env.PUBLIC_URL, ...(env.ALLOWED_ORIGINS?.split(",") ?? [])]
      .filter((o): o is string => Boolean(o))
      .map((o) => new URL(o.trim()).origin),
  };

  registerDependencyGauges(deps, redis);
  const app = createApp(deps);
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  const connections = trackConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(env.PORT, env.HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  const url = `http://127.0.0.1:${port}`;
  if (!env.PUBLIC_URL) deps.runtime.publicUrl = `http://localhost:${port}`;

  // The embedded queue does not outlive a process: the scans a stopped one left (a sync handed
  // over at shutdown) are queued again. Only where this process is its database's job runner.
  const jobsInProcess = !opts.jobs && !(env.REDIS_URL && !opts.inProcessJobs);
  if (ownsDb && jobsInProcess) {
    const resumed = await resumeLeftScans({ db: db.db, jobs });
    if (resumed.length > 0) log.info({ scans: resumed }, "resuming scans a stopped gateway left");
  }

  let closing: Promise<void> | undefined;
  const close = (plan?: TShutdownPlan) =>
    (closing ??= (async () => {
      const startedAt = Date.now();
      const left = () => (plan ? Math.max(0, plan.deadlineMs - (Date.now() - startedAt)) : Infinity);
      // Near the grace's end a request waiting on a job (a synchronous scan) is answered: the job
      // is in the queue and goes on (in the scheduler with Redis; else here, then the next start).
      const handoff = plan
        ? setTimeout(() => {
            log.warn({}, "shutdown: answering requests still waiting on jobs; the jobs go on");
            jobs.stopWaiting?.();
            connections.closeIdle();
          }, plan.handoffAtMs)
        : undefined;
      handoff?.unref();
      // Stop accepting, let in-flight requests finish (keep-alive clients are told to close),
      // then release pools.
      const drained = connections.drain();
      if (!plan) connections.closeIdle();
      await drained;
      clearTimeout(handoff);
      stopPeriodic();
      await deps.access.close();
      const jobsDone = await settlesWithin(
        Promise.all([workers?.close(), opts.jobs ? undefined : jobs.close()]),
        left(),
      );
      if (!jobsDone)
        log.warn(
          {},
          workers
            ? "shutdown: jobs still running are left to another worker"
            : "shutdown: jobs still running are left to the next start",
        );
      if (ownsRedis && redis) redis.disconnect();
      // A job cut off holds a connection, which the pool would wait for: a short try then (it
      // releases the embedded data directory's lock), not the whole of what is left.
      if (ownsDb) await settlesWithin(db.close(), jobsDone ? left() : 150);
    })());
  return { server, url, deps, close };
}

/** Pool occupancy, Redis health and queue depth, read when Prometheus scrapes. */
function registerDependencyGauges(deps: TGatewayDeps, redis: Redis | null): void {
  const { db, jobs } = deps;
  observedGauge("db_pool_connections", "PostgreSQL pool connections by state", ["state"], async () => {
    const s = db.poolStats?.();
    return s
      ? [
          { labels: { state: "total" }, value: s.total },
          { labels: { state: "idle" }, value: s.idle },
          { labels: { state: "waiting" }, value: s.waiting },
        ]
      : [];
  });
  observedGauge(
    "redis_up",
    "1 while the Redis connection is ready (a cluster: every worker's)",
    [],
    async () => (redis ? [{ labels: {}, value: redis.status === "ready" ? 1 : 0 }] : []),
    "min",
  );
  observedGauge(
    "job_queue_jobs",
    "Background jobs in the queue by state",
    ["state"],
    async () => {
      const depth = await jobs.depth?.().catch(() => undefined);
      return Object.entries(depth ?? {}).map(([state, value]) => ({ labels: { state }, value }));
      // Every worker sees the same shared queue: a cluster reports it once.
    },
    "max",
  );
  const cache = deps.readCache;
  if (cache) {
    observedGauge(
      "read_cache_bytes",
      "What the read cache holds: bytes of answers (compressed variants included) and answers",
      ["measure"],
      async () => [
        { labels: { measure: "bytes" }, value: cache.size },
        { labels: { measure: "answers" }, value: cache.count },
      ],
    );
  }
}
