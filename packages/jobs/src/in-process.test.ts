import { describe, expect, it } from "vitest";
import { createInProcessQueue } from "./in-process";
import { JobTimeoutError, UnknownJobError, type TJobRegistry } from "./types";

function deferred<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("in-process queue", () => {
  it("retries a failing handler with the attempt number until it succeeds", async () => {
    const seen: number[] = [];
    const queue = createInProcessQueue({
      flaky: {
        attempts: 3,
        backoffMs: 1,
        handler: async (data, { attempt }) => {
          seen.push(attempt);
          if (attempt < 3) throw new Error(`try ${attempt} failed`);
          return { echoed: data };
        },
      },
    });
    await expect(queue.runAndWait("flaky", { n: 7 }, { jobId: "f1", timeoutMs: 5_000 })).resolves.toEqual({
      echoed: { n: 7 },
    });
    expect(seen).toEqual([1, 2, 3]);
    await queue.close();
  });

  it("rejects runAndWait with the last error once the attempts are used up", async () => {
    let calls = 0;
    const queue = createInProcessQueue({
      doomed: {
        attempts: 2,
        backoffMs: 1,
        handler: async (_, { attempt }) => {
          calls++;
          throw new Error(`broken on try ${attempt}`);
        },
      },
    });
    await expect(queue.runAndWait("doomed", {}, { jobId: "d1", timeoutMs: 5_000 })).rejects.toThrow(
      "broken on try 2",
    );
    expect(calls).toBe(2);
    await queue.close();
  });

  it("runs a job id once while it is pending, and again once it has finished", async () => {
    const release = deferred();
    const runs: string[] = [];
    const queue = createInProcessQueue({
      blocked: {
        attempts: 1,
        backoffMs: 1,
        handler: async (data, { jobId }) => {
          runs.push(`${jobId}:${String(data)}`);
          await release.promise;
          return data;
        },
      },
    });
    await queue.enqueue("blocked", "first", { jobId: "same" });
    await queue.enqueue("blocked", "second", { jobId: "same" });
    // A runAndWait on a pending id joins the running job rather than starting another.
    const joined = queue.runAndWait("blocked", "third", { jobId: "same", timeoutMs: 5_000 });
    release.resolve();
    await expect(joined).resolves.toBe("first");
    await expect(queue.runAndWait("blocked", "fourth", { jobId: "same", timeoutMs: 5_000 })).resolves.toBe(
      "fourth",
    );
    expect(runs).toEqual(["same:first", "same:fourth"]);
    await queue.close();
  });

  it("rejects runAndWait with JobTimeoutError when the job outlasts the timeout", async () => {
    const release = deferred();
    const queue = createInProcessQueue({
      slow: { attempts: 1, backoffMs: 1, handler: () => release.promise },
    });
    const waiting = queue.runAndWait("slow", {}, { jobId: "s1", timeoutMs: 20 });
    await expect(waiting).rejects.toBeInstanceOf(JobTimeoutError);
    release.resolve();
    await queue.close();
  });

  it("refuses a job name nobody handles", async () => {
    const queue = createInProcessQueue({});
    await expect(queue.enqueue("nope", {})).rejects.toBeInstanceOf(UnknownJobError);
    await expect(queue.runAndWait("nope", {}, { jobId: "n", timeoutMs: 100 })).rejects.toBeInstanceOf(
      UnknownJobError,
    );
    await queue.close();
  });

  it("close waits for a running handler and runs nothing more", async () => {
    const started = deferred();
    const release = deferred();
    let finished = false;
    let retried = false;
    const queue = createInProcessQueue({
      busy: {
        attempts: 3,
        backoffMs: 60_000,
        handler: async (_, { attempt }) => {
          if (attempt > 1) retried = true;
          started.resolve();
          await release.promise;
          finished = true;
          throw new Error("fails, and would retry after a minute");
        },
      },
    });
    await queue.enqueue("busy", {}, { jobId: "b1" });
    await started.promise;
    const closing = queue.close();
    release.resolve();
    await closing;
    expect(finished).toBe(true);
    expect(retried).toBe(false);
    await expect(queue.enqueue("busy", {})).rejects.toThrow("queue closed");
  });

  it("reads a lazy registry on first use, so handlers can enqueue through the same queue", async () => {
    const done = deferred<unknown>();
    const queue = createInProcessQueue(() => registry);
    const registry: TJobRegistry = {
      first: {
        attempts: 1,
        backoffMs: 1,
        handler: async (data) => queue.enqueue("second", { from: data }),
      },
      second: { attempts: 1, backoffMs: 1, handler: async (data) => done.resolve(data) },
    };
    await queue.enqueue("first", "a");
    await expect(done.promise).resolves.toEqual({ from: "a" });
    await queue.close();
  });

  it("settles once a job and the delayed job it queued have both run, or at its bound", async () => {
    const ran: string[] = [];
    const gate = deferred();
    const queue = createInProcessQueue(() => registry);
    const registry: TJobRegistry = {
      first: {
        attempts: 1,
        backoffMs: 1,
        handler: async () => {
          ran.push("first");
          await queue.enqueue("second", null, { delayMs: 30 });
        },
      },
      second: { attempts: 1, backoffMs: 1, handler: async () => void ran.push("second") },
      held: { attempts: 1, backoffMs: 1, handler: () => gate.promise },
    };
    await queue.enqueue("first", null);
    await queue.settled?.(5_000);
    expect(ran).toEqual(["first", "second"]);
    // A job that does not finish: settled gives up at its bound instead of hanging.
    await queue.enqueue("held", null);
    const started = Date.now();
    await queue.settled?.(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    gate.resolve();
    await queue.close();
  });
});

describe("in-process queue: kinds of work and organizations", () => {
  it("runs a scan at once while every delivery slot is held, and caps one organization's deliveries", async () => {
    const release = deferred();
    let running = 0;
    let mostAtOnce = 0;
    const queue = createInProcessQueue(
      {
        deliver: {
          attempts: 1,
          backoffMs: 1,
          queue: "deliveries",
          orgOf: (data) => (data as { orgId: string }).orgId,
          handler: async () => {
            running++;
            mostAtOnce = Math.max(mostAtOnce, running);
            await release.promise;
            running--;
          },
        },
        scan: { attempts: 1, backoffMs: 1, queue: "scans", handler: async () => "scanned" },
        other: {
          attempts: 1,
          backoffMs: 1,
          queue: "deliveries",
          orgOf: () => "org-b",
          handler: async () => "delivered",
        },
      },
      { queues: { deliveries: { concurrency: 3, perOrg: 2 }, scans: { concurrency: 1 } } },
    );
    for (let i = 0; i < 6; i++) await queue.enqueue("deliver", { orgId: "org-a" }, { jobId: `a-${i}` });
    await new Promise((r) => setTimeout(r, 20));
    // Organization A holds two of the three delivery slots, no more.
    expect(running).toBe(2);
    // Another kind of work is not queued behind them, nor is another organization's delivery.
    await expect(queue.runAndWait("scan", {}, { jobId: "s1", timeoutMs: 500 })).resolves.toBe("scanned");
    await expect(queue.runAndWait("other", {}, { jobId: "b1", timeoutMs: 500 })).resolves.toBe("delivered");
    release.resolve();
    await queue.close();
    expect(mostAtOnce).toBe(2);
  });

  it("stopWaiting ends a wait as a timeout would, and the job carries on", async () => {
    const release = deferred();
    let finished = false;
    const queue = createInProcessQueue({
      slow: {
        attempts: 1,
        backoffMs: 1,
        handler: async () => {
          await release.promise;
          finished = true;
        },
      },
    });
    const waiting = queue.runAndWait("slow", {}, { jobId: "w1", timeoutMs: 60_000 });
    queue.stopWaiting?.();
    await expect(waiting).rejects.toBeInstanceOf(JobTimeoutError);
    expect(finished).toBe(false);
    release.resolve();
    await queue.close();
    expect(finished).toBe(true);
  });
});
