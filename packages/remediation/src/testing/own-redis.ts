import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { createDb, type Db } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { afterAll, beforeAll } from "vitest";
import { createBullQueue, startWorkers, type TWorkers } from "@posture/jobs";
import { createLogger, type TJobQueue, type TRuntime } from "@posture/platform";
import { freePort } from "@posture/platform/testing";
import { remediationJobs, type TRemediationJobDeps } from "../jobs/module";
import { createRateLimiter } from "../services/rate";

// What the interruption tests share (exactly-once-redis.int.test.ts, exactly-once-github.int.test.ts):
// a Redis of the test's own (never the shared one) that can be killed and started again EMPTY on
// the same port, and schedulers (BullMQ workers over the real remediation job module, each with
// its own database pool and rate bucket, as separate processes have) working its queues.

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function until(what: string, ok: () => Promise<boolean> | boolean, timeoutMs = 60_000) {
  const started = Date.now();
  while (!(await ok())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export type TOwnRedis = {
  url: string;
  /** Redis dies and comes back with nothing: no RDB, no AOF, as a cache-configured Redis would. */
  restartEmpty: () => Promise<void>;
  stop: () => Promise<void>;
};

/** A redis-server on a free port, answering PING before this resolves. */
export async function startOwnRedis(): Promise<TOwnRedis> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const answers = () =>
    new Promise<boolean>((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.once("error", () => resolve(false));
      s.once("connect", () => s.write("PING\r\n"));
      s.once("data", (d) => {
        s.destroy();
        resolve(d.toString().startsWith("+PONG"));
      });
    });
  const start = async () => {
    proc = spawn("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    await until("redis-server to answer", answers, 10_000);
  };
  const stop = async () => {
    const running = proc;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    restartEmpty: async () => {
      await stop();
      await sleep(300);
      await start();
    },
  };
}

/** What an interruption test file runs against: its own Redis, its own database, what to close. */
export type TInterruptionRig = {
  redis: TOwnRedis;
  tdb: TestDb;
  db: Db;
  /** Closed after the file's tests, last added first. */
  closers: Array<() => Promise<unknown>>;
};

/** The file's rig, started before its tests and stopped after them (read its fields inside tests). */
export function useInterruptionRig(): TInterruptionRig {
  const rig = { closers: [] } as unknown as TInterruptionRig;
  beforeAll(async () => {
    rig.redis = await startOwnRedis();
    rig.tdb = await createTestDb();
    rig.db = rig.tdb.db;
  });
  afterAll(async () => {
    for (const close of rig.closers.splice(0).reverse()) await close().catch(() => {});
    await rig.redis?.stop();
    await rig.tdb?.drop();
  });
  return rig;
}

/** Enqueues once Redis is back (the producer fails fast while it reconnects). */
export async function enqueueSoon(jobs: TJobQueue, ...args: Parameters<TJobQueue["enqueue"]>) {
  await until(
    `enqueue ${args[0]}`,
    async () => {
      try {
        await jobs.enqueue(...args);
        return true;
      } catch {
        await sleep(100);
        return false;
      }
    },
    15_000,
  );
}

/** Nothing active, waiting or delayed on the queues the producer sees. */
export async function idleQueue(producer: TJobQueue) {
  await until("an idle queue", async () => {
    const depth = await producer.depth?.().catch(() => undefined);
    return !!depth && (depth.active ?? 0) + (depth.waiting ?? 0) + (depth.delayed ?? 0) === 0;
  });
}

/**
 * `count` schedulers on `redisUrl` (each its own pool, queue client, rate bucket of 8 changes a
 * second and workers), and a producer to enqueue with; `closers` gets what to close, in order.
 */
export function startSchedulers(opts: {
  count: number;
  databaseUrl: string;
  redisUrl: string;
  db: Db;
  runtime: TRuntime;
  closers: Array<() => Promise<unknown>>;
}): { producer: TJobQueue; schedulers: TWorkers[] } {
  const prefix = "jobs";
  const schedulers: TWorkers[] = [];
  for (let s = 0; s < opts.count; s++) {
    const handle = createDb({ databaseUrl: opts.databaseUrl, poolSize: 4 });
    const queue = createBullQueue({
      redisUrl: opts.redisUrl,
      prefix,
      registry: () => registry,
      onError: () => {},
    });
    const deps: TRemediationJobDeps = {
      db: handle.db,
      jobs: queue,
      runtime: opts.runtime,
      log: createLogger("fatal"),
      rate: createRateLimiter({ perSecond: 8 }),
      backoffMs: 200,
    };
    const registry = remediationJobs.definitions(deps);
    const workers = startWorkers({
      redisUrl: opts.redisUrl,
      prefix,
      registry,
      queues: {
        scans: { concurrency: 1, perOrg: 2 },
        maintenance: { concurrency: 1 },
        deliveries: { concurrency: 1 },
        reports: { concurrency: 1 },
      },
    });
    schedulers.push(workers);
    opts.closers.push(
      () => handle.close(),
      () => queue.close(),
      () => workers.close(),
    );
  }
  const registry = remediationJobs.definitions({
    db: opts.db,
    jobs: {
      enqueue: async () => {},
      runAndWait: async () => undefined as never,
      ping: async () => {},
      close: async () => {},
    },
    runtime: opts.runtime,
    log: createLogger("fatal"),
  });
  const producer = createBullQueue({ redisUrl: opts.redisUrl, prefix, registry, onError: () => {} });
  opts.closers.push(() => producer.close());
  return { producer, schedulers };
}
