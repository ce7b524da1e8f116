import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, connectors, sandboxScenarioRuns } from "@posture/db";
import { useTestGateway } from "../../testing";
import { errorCode } from "../helpers";
import { call, makeSandbox, settled } from "./harness";

// A sandbox run is a row of sandbox_scenario_runs: the request opens it, the job closes it, GET
// reads it. One run at a time per sandbox: a second request while one runs is 409 `conflict`
// naming the running one; a run whose job was lost stops holding the sandbox after its bound.

const gw = useTestGateway();

const MINUTE = 60_000;

async function runRow(id: string) {
  const [row] = await gw.db.db.select().from(sandboxScenarioRuns).where(eq(sandboxScenarioRuns.id, id));
  return row;
}

describe("sandbox runs", () => {
  it("records a run in its row, and refuses a second run of the sandbox while it runs", async () => {
    const { sandbox, key, home } = await makeSandbox(gw);

    // Two requests at once: one run opens, the other is told which one holds the sandbox.
    const [a, b] = await Promise.all([
      call(gw, "POST", "/api/sandbox/scenarios", { key }, { kind: "public_link_created" }),
      call(gw, "POST", "/api/sandbox/scenarios", { key }, { kind: "agent_granted" }),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses, JSON.stringify([a.body, b.body])).toEqual([202, 409]);
    const [accepted, refused] = a.status === 202 ? [a, b] : [b, a];
    const run = accepted.body as { id: string; kind: string; status: string; createdAt: string };
    expect(run.id).toMatch(/^scn_[a-z2-7]{32}$/);
    expect(run.status).toBe("QUEUED");
    expect(errorCode(refused)).toBe("conflict");
    expect(refused.body).toMatchObject({ runningId: run.id });

    // The refused request connected nothing: the sandbox's first demo source was made once.
    const sources = await gw.db.db
      .select({ id: connectors.id })
      .from(connectors)
      .where(eq(connectors.orgId, sandbox.id));
    expect(sources).toHaveLength(1);

    // Its row, opened by the request: by whom, and what it will change.
    const opened = await runRow(run.id);
    expect(opened).toMatchObject({ orgId: sandbox.id, kind: run.kind, requestedByUserId: home.user.id });

    // The job closes the row; GET reads it from there.
    const done = await settled(gw, key, run.id);
    expect(done).toMatchObject({ id: run.id, kind: run.kind, status: "COMPLETE", error: null });
    expect(done.scans.length).toBeGreaterThan(0);
    const closed = await runRow(run.id);
    expect(closed?.status).toBe("COMPLETE");
    expect(closed?.completedAt).toBeInstanceOf(Date);
    expect(closed?.result).toMatchObject({ connectorId: done.scans[0]?.connectorId, scans: done.scans });
    // The audit trail still tells the run's story, under the run's id.
    const trail = await gw.db.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, sandbox.id), eq(auditLog.target, run.id)));
    expect(trail.map((r) => r.action).sort()).toEqual([
      "SANDBOX_SCENARIO_FINISHED",
      "SANDBOX_SCENARIO_STARTED",
    ]);

    // Once it finished the sandbox is free again.
    const next = await call(gw, "POST", "/api/sandbox/reset", { key });
    expect(next.status, JSON.stringify(next.body)).toBe(202);
    const resetRun = await settled(gw, key, (next.body as { id: string }).id);
    expect(resetRun.kind).toBe("reset");
  }, 240_000);

  it("a run whose job was lost holds the sandbox until its bound, then reads as FAILED", async () => {
    const { sandbox, key } = await makeSandbox(gw);
    const [held] = await gw.db.db
      .insert(sandboxScenarioRuns)
      .values({ orgId: sandbox.id, kind: "agent_granted", createdAt: new Date(Date.now() - MINUTE) })
      .returning();
    if (!held) throw new Error("no row");

    // Scenarios and resets alike wait for it.
    for (const [path, body] of [
      ["/api/sandbox/scenarios", { kind: "public_link_created" }],
      ["/api/sandbox/reset", undefined],
    ] as const) {
      const refused = await call(gw, "POST", path, { key }, body);
      expect(refused.status, path).toBe(409);
      expect(refused.body).toMatchObject({ error: "conflict", runningId: held.id });
    }
    const queued = await call(gw, "GET", `/api/sandbox/scenarios/${held.id}`, { key });
    expect(queued.body).toMatchObject({ id: held.id, status: "QUEUED", finishedAt: null, scans: [] });

    // Past the 25-minute bound: FAILED when read, and the next request closes it so and runs.
    await gw.db.db
      .update(sandboxScenarioRuns)
      .set({ createdAt: new Date(Date.now() - 26 * MINUTE) })
      .where(eq(sandboxScenarioRuns.id, held.id));
    await gw.publishDataChanges(); // the clock moved by hand: the read caches are told
    const lost = await call(gw, "GET", `/api/sandbox/scenarios/${held.id}`, { key });
    expect(lost.body).toMatchObject({ status: "FAILED", error: expect.stringMatching(/25 minutes/) });
    const reset = await call(gw, "POST", "/api/sandbox/reset", { key });
    expect(reset.status, JSON.stringify(reset.body)).toBe(202);
    expect((await runRow(held.id))?.status).toBe("FAILED");
    await settled(gw, key, (reset.body as { id: string }).id);
  }, 120_000);

  it("another sandbox's run is not found", async () => {
    const one = await makeSandbox(gw);
    const other = await makeSandbox(gw);
    const [row] = await gw.db.db
      .insert(sandboxScenarioRuns)
      .values({ orgId: one.sandbox.id, kind: "reset", status: "COMPLETE", completedAt: new Date() })
      .returning();
    if (!row) throw new Error("no row");
    const own = await call(gw, "GET", `/api/sandbox/scenarios/${row.id}`, { key: one.key });
    expect(own.body).toMatchObject({ id: row.id, status: "COMPLETE", kind: "reset" });
    const foreign = await call(gw, "GET", `/api/sandbox/scenarios/${row.id}`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe("not_found");
  });
});
