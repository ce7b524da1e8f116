import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectors, organizations, scans } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createLogger } from "@posture/platform";
import { runScanJob } from "./index";
import { scanOnlyDeps } from "./testing/scan-deps";
import { createScriptedTenant, sampleSeed } from "./testing";

// Issue 35: a scan's log line and its result say where its time went, stage by stage, for an operator.

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db?.drop());

describe("the scan finished log line", () => {
  it("carries the queue wait and each stage's milliseconds, in order, summing to the total", async () => {
    const [org] = await db.db.insert(organizations).values({ name: "Stages", plan: "business" }).returning();
    if (!org) throw new Error("no org");
    const [c] = await db.db
      .insert(connectors)
      .values({ orgId: org.id, type: "google_workspace", displayName: "stages", mode: "real" })
      .returning();
    if (!c) throw new Error("no connector");
    const tenant = createScriptedTenant(sampleSeed(40));
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    const deps = {
      ...scanOnlyDeps(db.db, { adapterFor: () => tenant.adapter }),
      log: createLogger("info", sink),
    };
    const [row] = await db.db
      .insert(scans)
      .values({ orgId: org.id, connectorId: c.id, connectorName: "stages", trigger: "manual" })
      .returning();
    if (!row) throw new Error("no scan");
    const result = await runScanJob(deps, row.id, 1);
    expect(result.status).toBe("COMPLETE");

    const finished = lines.find((l) => l.msg === "scan finished");
    const stages = finished?.stages as Record<string, number>;
    expect(Object.keys(stages)).toEqual([
      "plan",
      "groups",
      "users",
      "files",
      "drives",
      "apps",
      "settings",
      "commit",
      "persist",
      "ai_reach",
      "handoff",
      "total",
    ]);
    for (const ms of Object.values(stages)) expect(Number.isInteger(ms) && ms >= 0).toBe(true);
    const { total, ...parts } = stages;
    const sum = Object.values(parts).reduce((s, ms) => s + ms, 0);
    // Each part is rounded on its own: the sum is within one ms per stage of the total.
    expect(Math.abs(sum - (total ?? 0))).toBeLessThanOrEqual(Object.keys(parts).length);
    expect(typeof finished?.queuedMs).toBe("number");
    expect(finished).toMatchObject({ scanId: row.id, kind: "full", fullReason: "first" });
    // The scan's row, and so its API result, keeps the same figures, the stages in order.
    expect(result.timing).toEqual({
      queuedMs: finished?.queuedMs,
      totalMs: total,
      stages: Object.entries(parts).map(([stage, ms]) => ({ stage, ms })),
    });
    await deps.jobs.close();
  });
});
