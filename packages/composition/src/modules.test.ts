import { randomBytes } from "node:crypto";
import type { Db } from "@posture/db";
import { JOB_QUEUES, periodicTasksOf, queueOf } from "@posture/jobs";
import type { TJobQueue } from "@posture/platform";
import { describe, expect, it } from "vitest";
import { buildJobRegistry, JOB_MODULES } from "./index";

// Building the registry calls no handler, so placeholders for the database and queue suffice.
const deps = {
  db: {} as Db,
  jobs: {} as TJobQueue,
  runtime: {
    encryptionKey: randomBytes(32),
    publicUrl: "http://localhost:3000",
    webhookAllowPrivateTargets: false,
  },
  log: { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} },
};

describe("the service's job modules", () => {
  it("combine without two modules claiming one job name", () => {
    const names = JOB_MODULES.flatMap((m) => Object.keys(m.definitions(deps)));
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(buildJobRegistry(deps)).sort()).toEqual([...names].sort());
    expect(names).toEqual(
      expect.arrayContaining([
        "maintenance.purge",
        "scan.run",
        "scan.sweep-due",
        "webhook.deliver",
        "webhook.sweep",
      ]),
    );
  });

  it("schedule only jobs that some module defines, each under its own scheduler id", () => {
    const registry = buildJobRegistry(deps);
    const tasks = periodicTasksOf(JOB_MODULES);
    for (const t of tasks) expect(Object.hasOwn(registry, t.name), t.name).toBe(true);
    expect(new Set(tasks.map((t) => t.schedulerId)).size).toBe(tasks.length);
    expect(tasks.every((t) => t.everyMs >= 1_000)).toBe(true);
  });

  it("put each kind of work on its own queue, capping scans and deliveries per organization", () => {
    const registry = buildJobRegistry(deps);
    const queues = Object.fromEntries(Object.entries(registry).map(([name, def]) => [name, queueOf(def)]));
    for (const q of Object.values(queues)) expect(JOB_QUEUES).toContain(q);
    expect(queues).toMatchObject({
      "scan.run": "scans",
      "webhook.deliver": "deliveries",
      "webhook.record-attempt": "deliveries",
      "compliance.evidence.build": "reports",
      "maintenance.purge": "maintenance",
      "scan.sweep-due": "maintenance",
      "webhook.sweep": "maintenance",
    });
    expect(registry["scan.run"]?.orgOf).toBeTypeOf("function");
    expect(registry["webhook.deliver"]?.orgOf).toBeTypeOf("function");
    // A delivery run has a hard bound: a receiver can never hold a worker indefinitely.
    expect(registry["webhook.deliver"]?.timeoutMs).toBeLessThanOrEqual(60_000);
  });
});
