import { spawn, type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@posture/platform/testing";
import { createBullQueue } from "./bullmq";
import { startPeriodicTasks } from "./modules";
import type { TJobRegistry } from "./types";
import { startWorkers } from "./workers";

// A Redis that restarts empty (no persistence) loses the repeating schedules with everything
// else; the process that put them there must put them back, without being restarted itself.
// The test runs a redis-server of its own, so it can stop and start it.

let redisProc: ChildProcess | undefined;
async function startRedis(port: number): Promise<void> {
  redisProc = spawn("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  const probe = new Redis(port, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on("error", () => {});
  for (let i = 0; i < 100; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return;
    } catch {
      probe.disconnect();
      await sleep(50);
    }
  }
  throw new Error("redis-server did not start");
}
async function stopRedis(): Promise<void> {
  const proc = redisProc;
  if (!proc || proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGKILL");
  await exited;
}

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  await stopRedis();
});

describe("periodic schedules after Redis restarts empty", () => {
  it("are put back, and their jobs run again, without restarting the process", async () => {
    const port = await freePort();
    await startRedis(port);
    const redisUrl = `redis://127.0.0.1:${port}`;
    const prefix = "jobs";
    const ticks: number[] = [];
    const registry: TJobRegistry = {
      "maintenance.tick": { attempts: 1, backoffMs: 10, handler: async () => void ticks.push(Date.now()) },
    };
    const jobs = createBullQueue({ redisUrl, prefix, registry, onError: () => {} });
    const workers = startWorkers({ redisUrl, prefix, registry, queues: { maintenance: { concurrency: 1 } } });
    const stop = await startPeriodicTasks(
      jobs,
      [{ name: "maintenance.tick", schedulerId: "periodic-tick", everyMs: 500 }],
      { checkEveryMs: 1_000 },
    );
    const inspect = new Queue("maintenance", { prefix, connection: { url: redisUrl } });
    inspect.on("error", () => {});
    closers.push(
      async () => stop(),
      () => workers.close(),
      () => jobs.close(),
      () => inspect.close(),
    );

    const hasScheduler = async () =>
      (await inspect.getJobScheduler("periodic-tick").catch(() => undefined)) != null;
    expect(await hasScheduler()).toBe(true);
    for (let i = 0; i < 100 && ticks.length === 0; i++) await sleep(50);
    expect(ticks.length).toBeGreaterThan(0);

    // Redis dies and comes back empty (no RDB, no AOF), as a cache-configured Redis would.
    await stopRedis();
    await sleep(300);
    await startRedis(port);
    const restartedAt = Date.now();

    // Back within the self-check's interval (1 s here; 30 s by default) and the reconnection.
    let back = false;
    while (!back && Date.now() - restartedAt < 10_000) {
      await sleep(250);
      back = await hasScheduler();
    }
    expect(back).toBe(true);
    const restoredAfterMs = Date.now() - restartedAt;
    expect(restoredAfterMs).toBeLessThan(10_000);
    // And the job runs again.
    const ticksBefore = ticks.filter((t) => t >= restartedAt).length;
    for (let i = 0; i < 100 && ticks.filter((t) => t >= restartedAt).length <= ticksBefore; i++)
      await sleep(50);
    expect(ticks.filter((t) => t >= restartedAt).length).toBeGreaterThan(0);
  }, 60_000);
});
