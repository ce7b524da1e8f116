import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import type { Logger } from "pino";
import { openDb, resolveDataDir, type DbHandle } from "@posture/db";
import { createJobQueue, type TJobRegistry } from "@posture/jobs";
import { buildJobRegistry, startPeriodicJobs } from "@posture/posture";
import { startScheduler, type TScheduler } from "@posture/scheduler";
import {
  createLogger,
  createRedis,
  parseEncryptionKey,
  waitForRedis,
  RateLimits,
  type TJobQueue,
  type TRuntime,
} from "@posture/platform";
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { createApp } from "./app";
import type { TGatewayDeps } from "./deps";
import { parseTrustProxy, type TEnv } from "./env";

export type TGateway = {
  server: Server;
  url: string;
  deps: TGatewayDeps;
  close: () => Promise<void>;
};

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
        ? { databaseUrl: env.DATABASE_URL }
        : { dataDir: join(resolveDataDir(env.DATA_DIR), "pg") },
    ));
  if (ownsDb) await db.migrate();
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
  // Handlers enqueue follow-up jobs, so the registry is resolved lazily, after the queue exists.
  let registry: TJobRegistry | undefined;
  const jobs: TJobQueue =
    opts.jobs ??
    createJobQueue({
      ...(env.REDIS_URL && !opts.inProcessJobs ? { redisUrl: env.REDIS_URL } : {}),
      prefix: env.JOBS_PREFIX,
      registry: (): TJobRegistry => (registry ??= buildJobRegistry({ db: db.db, jobs, runtime, log })),
      onError: (err) => log.warn({ err: err.message }, "job queue error"),
    });
  let stopPeriodic = () => {};
  let workers: TScheduler | undefined;
  if (opts.withScheduler) {
    if (env.REDIS_URL && !opts.inProcessJobs && !opts.jobs) {
      workers = startScheduler({
        redisUrl: env.REDIS_URL,
        prefix: env.JOBS_PREFIX,
        registry: () => registry ?? {},
        concurrency: 2,
        log,
      });
    }
    stopPeriodic = await startPeriodicJobs(jobs);
  }
  const probes: TGatewayDeps["probes"] = { db: db.ping };
  if (redis) probes.redis = async () => void (await redis.ping());

  const deps: TGatewayDeps = {
    db,
    limits: new RateLimits(redis, opts.rateLimitPrefix ?? "rl"),
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

  const app = createApp(deps);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(env.PORT, env.HOST, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  server.keepAliveTimeout = 65_000;
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  const url = `http://127.0.0.1:${port}`;
  if (!env.PUBLIC_URL) deps.runtime.publicUrl = `http://localhost:${port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Stop accepting, let in-flight requests finish, then release pools.
      await new Promise<void>((resolve) => {
        // A keep-alive connection whose request finishes after this point turns idle later:
        // keep closing idle ones until the last in-flight request is done.
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      });
      stopPeriodic();
      await workers?.close();
      if (!opts.jobs) await jobs.close();
      if (ownsRedis && redis) redis.disconnect();
      if (ownsDb) await db.close();
    })());

  return { server, url, deps, close };
}
