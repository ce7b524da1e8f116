import { setTimeout as sleep } from "node:timers/promises";
import { Queue } from "bullmq";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createBullQueue } from "./bullmq";
import { createJobQueue, LEGACY_QUEUE_NAME, startPeriodicTasks } from "./index";
import { dropPrefix, TEST_REDIS_URL, uniquePrefix } from "./testing/redis";
import { JobTimeoutError, UnknownJobError, type TJobRegistry, type TScheduledJobQueue } from "./types";
import { startWorkers, type TWorkers } from "./workers";

const prefix = uniquePrefix("bullmq");
let queueSeq = 0;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});
afterAll(() => dropPrefix(prefix));

function deferred<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A queue and its workers on a queue name of the test's own, closed after the test. */
function setup(registry: TJobRegistry, workers: { start?: boolean; concurrency?: number } = {}) {
  const queueName = `q${++queueSeq}`;
  const queue = createBullQueue({ redisUrl: TEST_REDIS_URL, prefix, queueName, registry });
  cleanups.push(() => queue.close());
  const start = (): TWorkers => {
    const w = startWorkers({
      redisUrl: TEST_REDIS_URL,
      prefix,
      queueName,
      registry,
      concurrency: workers.concurrency ?? 1,
    });
    cleanups.push(() => w.close());
    return w;
  };
  const inspect = new Queue(queueName, { prefix, connection: { url: TEST_REDIS_URL } });
  cleanups.push(() => inspect.close());
  return { queue, queueName, start, inspect, workers: workers.start === false ? undefined : start() };
}

describe("BullMQ job queue", () => {
  it("runs an enqueued job's handler with its data and the caller's job id", async () => {
    const seen = deferred<{ data: unknown; jobId: string; attempt: number }>();
    const { queue } = setup({
      hello: { attempts: 1, backoffMs: 10, handler: async (data, ctx) => seen.resolve({ data, ...ctx }) },
    });
    await queue.enqueue("hello", { orgId: "o1" }, { jobId: "scan:conn-1:2024-05-01" });
    await expect(seen.promise).resolves.toEqual({
      data: { orgId: "o1" },
      jobId: "scan:conn-1:2024-05-01",
      attempt: 1,
    });
  });

  it("retries a failing handler with exponential back-off until it succeeds", async () => {
    const tries: { attempt: number; at: number }[] = [];
    const { queue } = setup({
      flaky: {
        attempts: 3,
        backoffMs: 200,
        handler: async (_, { attempt }) => {
          tries.push({ attempt, at: Date.now() });
          if (attempt < 3) throw new Error(`try ${attempt} failed`);
          return { ok: attempt };
        },
      },
    });
    await expect(queue.runAndWait("flaky", {}, { jobId: "flaky-1", timeoutMs: 10_000 })).resolves.toEqual({
      ok: 3,
    });
    expect(tries.map((t) => t.attempt)).toEqual([1, 2, 3]);
    const [first, second, third] = tries.map((t) => t.at);
    // Back-off doubles: at least 200 ms, then at least 400 ms.
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(190);
    expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(390);
  });

  it("rejects runAndWait with the handler's error once the attempts are used up", async () => {
    let calls = 0;
    const { queue, inspect } = setup({
      doomed: {
        attempts: 2,
        backoffMs: 50,
        handler: async (_, { attempt }) => {
          calls++;
          throw new Error(`upstream said no (try ${attempt})`);
        },
      },
    });
    await expect(queue.runAndWait("doomed", {}, { jobId: "doomed-1", timeoutMs: 10_000 })).rejects.toThrow(
      "upstream said no (try 2)",
    );
    expect(calls).toBe(2);
    expect(await inspect.getJobState("doomed-1")).toBe("failed");
  });

  it("adds a job id once while it is pending, and again after it finished", async () => {
    const runs: unknown[] = [];
    const sentinel = deferred();
    const registry: TJobRegistry = {
      count: { attempts: 1, backoffMs: 10, handler: async (data) => runs.push(data) },
      sentinel: { attempts: 1, backoffMs: 10, handler: async () => sentinel.resolve() },
    };
    const { queue, start } = setup(registry, { start: false });
    await queue.enqueue("count", "first", { jobId: "dedupe:1" });
    await queue.enqueue("count", "second", { jobId: "dedupe:1" });
    await queue.enqueue("sentinel", null);
    // One worker, first in first out: a duplicate would have run before the sentinel.
    start();
    await sentinel.promise;
    expect(runs).toEqual(["first"]);

    await expect(queue.runAndWait("count", "third", { jobId: "dedupe:1", timeoutMs: 5_000 })).resolves.toBe(
      2,
    );
    expect(runs).toEqual(["first", "third"]);
  });

  it("runs a delayed job no sooner than its delay", async () => {
    const ranAt = deferred<number>();
    const { queue, inspect } = setup({
      later: { attempts: 1, backoffMs: 10, handler: async () => ranAt.resolve(Date.now()) },
    });
    const enqueuedAt = Date.now();
    await queue.enqueue("later", {}, { jobId: "later-1", delayMs: 800 });
    expect(await inspect.getJobState("later-1")).toBe("delayed");
    expect((await ranAt.promise) - enqueuedAt).toBeGreaterThanOrEqual(790);
  });

  it("rejects runAndWait on timeout while the job carries on", async () => {
    const release = deferred();
    const finished = deferred();
    const { queue } = setup({
      slow: {
        attempts: 1,
        backoffMs: 10,
        handler: async () => {
          await release.promise;
          finished.resolve();
        },
      },
    });
    const waiting = queue.runAndWait("slow", {}, { jobId: "slow-1", timeoutMs: 300 });
    await expect(waiting).rejects.toBeInstanceOf(JobTimeoutError);
    release.resolve();
    await finished.promise;
  });

  it("graceful close waits for the job in flight to finish", async () => {
    const started = deferred();
    let finished = false;
    const { queue, workers, inspect } = setup({
      busy: {
        attempts: 1,
        backoffMs: 10,
        handler: async () => {
          started.resolve();
          await sleep(600);
          finished = true;
        },
      },
    });
    await queue.enqueue("busy", {}, { jobId: "busy-1" });
    await started.promise;
    await workers?.close();
    expect(finished).toBe(true);
    expect(await inspect.getJobState("busy-1")).toBe("completed");
  });

  it("fails a job no handler knows at once, without retries", async () => {
    const registry: TJobRegistry = {
      orphan: { attempts: 5, backoffMs: 10, handler: async () => "never" },
    };
    const { queue, queueName, inspect } = setup(registry, { start: false });
    const w = startWorkers({ redisUrl: TEST_REDIS_URL, prefix, queueName, registry: {} });
    cleanups.push(() => w.close());
    await expect(queue.runAndWait("orphan", {}, { jobId: "orphan-1", timeoutMs: 5_000 })).rejects.toThrow(
      'no handler registered for job "orphan"',
    );
    expect((await inspect.getJob("orphan-1"))?.attemptsMade).toBe(1);
    await expect(queue.enqueue("unheard-of", {})).rejects.toBeInstanceOf(UnknownJobError);
  });

  it("repeats a scheduled job until it is unscheduled", async () => {
    const ticks: string[] = [];
    const payloads: unknown[] = [];
    const twice = deferred();
    const { queue, inspect } = setup({
      tick: {
        attempts: 1,
        backoffMs: 10,
        handler: async (data, { jobId }) => {
          ticks.push(jobId);
          payloads.push(data);
          if (ticks.length === 2) twice.resolve();
        },
      },
    });
    await queue.scheduleRepeating("tick", { connectorId: "c1" }, { schedulerId: "scan:c1", everyMs: 200 });
    // Upserting the same schedule again (another replica starting) does not add a second one.
    await queue.scheduleRepeating("tick", { connectorId: "c1" }, { schedulerId: "scan:c1", everyMs: 200 });
    expect(await inspect.getJobSchedulersCount()).toBe(1);
    await twice.promise;
    expect(ticks[0]).toMatch(/^repeat:scan:c1:\d+$/);
    expect(payloads.slice(0, 2)).toEqual([{ connectorId: "c1" }, { connectorId: "c1" }]);
    await queue.unschedule("scan:c1");
    expect(await inspect.getJobSchedulersCount()).toBe(0);
  });

  it("lets handlers enqueue follow-up jobs through a registry built after the queue", async () => {
    const done = deferred<unknown>();
    const queue = createJobQueue({ redisUrl: TEST_REDIS_URL, prefix, registry: () => registry });
    const registry: TJobRegistry = {
      first: {
        attempts: 1,
        backoffMs: 10,
        handler: async (data) => queue.enqueue("second", { after: data }),
      },
      second: { attempts: 1, backoffMs: 10, handler: async (data) => done.resolve(data) },
    };
    // createJobQueue takes the default queue name; the file's prefix keeps it apart from other files.
    const w = startWorkers({ redisUrl: TEST_REDIS_URL, prefix, registry: () => registry });
    cleanups.push(
      () => queue.close(),
      () => w.close(),
    );
    await queue.enqueue("first", "a");
    await expect(done.promise).resolves.toEqual({ after: "a" });
  });

  it("answers ping, and fails ping and enqueue fast when Redis is unreachable", async () => {
    const { queue } = setup({});
    await expect(queue.ping()).resolves.toBeUndefined();

    const registry: TJobRegistry = { any: { attempts: 1, backoffMs: 10, handler: async () => null } };
    const down: TScheduledJobQueue = createBullQueue({
      redisUrl: "redis://127.0.0.1:1",
      prefix,
      registry,
      redisTimeoutMs: 300,
    });
    const started = Date.now();
    await expect(down.ping()).rejects.toThrow(/timed out|ECONNREFUSED|closed/);
    await expect(down.enqueue("any", {})).rejects.toThrow(/timed out|ECONNREFUSED|closed/);
    expect(Date.now() - started).toBeLessThan(3_000);
    await down.close();
  });

  it("drains the single queue of older releases and retires its schedules", async () => {
    const legacyPrefix = `${prefix}-legacy`;
    cleanups.push(() => dropPrefix(legacyPrefix));
    const legacy = new Queue(LEGACY_QUEUE_NAME, {
      prefix: legacyPrefix,
      connection: { url: TEST_REDIS_URL },
    });
    cleanups.push(() => legacy.close());
    await legacy.add("old.job", { n: 1 }, { jobId: "queued-before-upgrade" });
    await legacy.upsertJobScheduler("periodic-old", { every: 60_000 }, { name: "old.job", data: {} });
    const ran = deferred<unknown>();
    const registry: TJobRegistry = {
      "old.job": {
        attempts: 1,
        backoffMs: 10,
        handler: async (data) => {
          if ((data as { n?: number }).n === 1) ran.resolve(data);
        },
      },
    };
    const queue = createBullQueue({ redisUrl: TEST_REDIS_URL, prefix: legacyPrefix, registry });
    const w = startWorkers({ redisUrl: TEST_REDIS_URL, prefix: legacyPrefix, registry });
    cleanups.push(
      () => queue.close(),
      () => w.close(),
    );
    const stop = await startPeriodicTasks(queue, []);
    stop();
    expect(await legacy.getJobSchedulersCount()).toBe(0);
    // The job an older release queued still runs.
    await expect(ran.promise).resolves.toEqual({ n: 1 });
  });

  it("fails a try that outlives its definition's bound and frees its worker for the next job", async () => {
    const { queue } = setup(
      {
        stuck: { attempts: 1, backoffMs: 10, timeoutMs: 300, handler: () => new Promise(() => {}) },
        next: { attempts: 1, backoffMs: 10, handler: async () => "ran" },
      },
      { concurrency: 1 },
    );
    const started = Date.now();
    await expect(queue.runAndWait("stuck", {}, { jobId: "stuck-1", timeoutMs: 5_000 })).rejects.toThrow(
      /exceeded its 300 ms bound/,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    // The one worker slot is free again.
    await expect(queue.runAndWait("next", {}, { jobId: "next-1", timeoutMs: 5_000 })).resolves.toBe("ran");
  });
});
