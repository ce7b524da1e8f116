import type { TEnqueueOptions, TJobQueue } from "@posture/platform";
import { describe, expect, it } from "vitest";
import { combineJobModules, periodicTasksOf, startPeriodicTasks } from "./modules";
import type { TJobModule, TRepeatOptions, TScheduledJobQueue } from "./types";

type TDeps = { tag: string };

const job = (result: string) => ({ attempts: 1, backoffMs: 0, handler: async () => result });

const alpha: TJobModule<TDeps> = {
  definitions: (deps) => ({ "alpha.run": job(`alpha:${deps.tag}`) }),
  periodic: [{ name: "alpha.run", schedulerId: "periodic-alpha", everyMs: 60_000 }],
};
const beta: TJobModule<{ tag: string; extra?: number }> = {
  definitions: () => ({ "beta.run": job("beta"), "beta.sweep": job("sweep") }),
  periodic: [{ name: "beta.sweep", schedulerId: "periodic-beta", everyMs: 300_000 }],
};

function recordingQueue() {
  const calls: Array<{ name: string; opts?: TEnqueueOptions }> = [];
  const queue: TJobQueue = {
    enqueue: async (name, _data, opts) => void calls.push({ name, ...(opts ? { opts } : {}) }),
    runAndWait: async () => {
      throw new Error("not used");
    },
    ping: async () => {},
    close: async () => {},
  };
  return { queue, calls };
}

describe("job modules", () => {
  it("combine into one registry built from the shared deps", async () => {
    const registry = combineJobModules<TDeps>([alpha, beta], { tag: "t1" });
    expect(Object.keys(registry).sort()).toEqual(["alpha.run", "beta.run", "beta.sweep"]);
    await expect(registry["alpha.run"]?.handler({}, { jobId: "j", attempt: 1 })).resolves.toBe("alpha:t1");
  });

  it("refuse two modules defining the same job", () => {
    const twin: TJobModule<TDeps> = { definitions: () => ({ "beta.run": job("twin") }) };
    expect(() => combineJobModules<TDeps>([beta, twin], { tag: "t" })).toThrow(/beta\.run.*two job modules/);
  });

  it("list their periodic tasks in module order", () => {
    expect(periodicTasksOf<TDeps>([alpha, beta]).map((t) => t.schedulerId)).toEqual([
      "periodic-alpha",
      "periodic-beta",
    ]);
  });

  it("in-process: enqueue each periodic task at once, with a job id per interval", async () => {
    const { queue, calls } = recordingQueue();
    const stop = await startPeriodicTasks(queue, periodicTasksOf<TDeps>([alpha, beta]));
    stop();
    expect(calls.map((c) => c.name)).toEqual(["alpha.run", "beta.sweep"]);
    const bucket = Math.floor(Date.now() / 60_000);
    expect(calls[0]?.opts?.jobId).toMatch(new RegExp(`^periodic-alpha-(${bucket - 1}|${bucket})$`));
  });

  it("durable queue: upsert one repeating schedule per task", async () => {
    const { queue } = recordingQueue();
    const schedules: Array<{ name: string; opts: TRepeatOptions }> = [];
    const scheduled: TScheduledJobQueue = {
      ...queue,
      scheduleRepeating: async (name, _data, opts) => void schedules.push({ name, opts }),
      hasSchedule: async () => true,
      unschedule: async () => {},
    };
    const stop = await startPeriodicTasks(scheduled, periodicTasksOf<TDeps>([alpha, beta]));
    stop();
    expect(schedules).toEqual([
      { name: "alpha.run", opts: { schedulerId: "periodic-alpha", everyMs: 60_000 } },
      { name: "beta.sweep", opts: { schedulerId: "periodic-beta", everyMs: 300_000 } },
    ]);
  });
});
