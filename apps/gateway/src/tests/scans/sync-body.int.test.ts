import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { connectors, scans } from "@posture/db";
import { useTestGateway } from "../../testing";

// POST /api/connectors/{id}/sync's optional body: `full` asks for a full read, `demo.advance`
// changes a demo tenant first. Both are checked strictly: a wrong type or a demo field on a real
// connector is a 400 that changes nothing.

const gw = useTestGateway();

async function demoConnector(cookie: string) {
  const res = await gw.request("POST", "/api/connectors", {
    cookie,
    body: { type: "google_workspace", displayName: "Demo", mode: "demo", demo: { files: 50 } },
  });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

const revisionOf = async (id: string) =>
  (await gw.db.db.select({ config: connectors.config }).from(connectors).where(eq(connectors.id, id)))[0]
    ?.config.revision;
const scanCount = async (id: string) =>
  (await gw.db.db.select({ id: scans.id }).from(scans).where(eq(scans.connectorId, id))).length;

type TTiming = { queuedMs: number; totalMs: number; stages: Array<{ stage: string; ms: number }> };

describe("POST /api/connectors/{id}/sync body", () => {
  it("refuses what is not a boolean or an advance of 1 to 1000, and scans nothing", async () => {
    const a = await gw.createActor({ plan: "business" });
    const id = await demoConnector(a.cookie);
    for (const body of [
      { full: "yes" },
      { full: 1 },
      { demo: { advance: 0 } },
      { demo: { advance: 1001 } },
      { demo: { advance: 1.5 } },
      { demo: { advance: "2" } },
      { demo: { files: 10 } },
      { fast: true },
    ]) {
      const res = await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((res.body as { error: string }).error).toBe("invalid_input");
    }
    expect(await scanCount(id)).toBe(0);
    expect(await revisionOf(id)).toBe(0);
  });

  it("refuses demo changes for a real connector", async () => {
    const a = await gw.createActor({ plan: "business" });
    const [real] = await gw.db.db
      .insert(connectors)
      .values({ orgId: a.orgId, type: "google_workspace", displayName: "Real", mode: "real" })
      .returning();
    if (!real) throw new Error("no connector");
    const res = await gw.request("POST", `/api/connectors/${real.id}/sync`, {
      cookie: a.cookie,
      body: { demo: { advance: 1 } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_input" });
    expect(await scanCount(real.id)).toBe(0);
  });

  it("moves the demo tenant forward with the scan, and a full scan says it was asked for", async () => {
    const a = await gw.createActor({ plan: "business" });
    const id = await demoConnector(a.cookie);
    const first = await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "COMPLETE", kind: "full" });
    const advanced = await gw.request("POST", `/api/connectors/${id}/sync`, {
      cookie: a.cookie,
      body: { demo: { advance: 3 } },
    });
    expect(advanced.status).toBe(200);
    expect(await revisionOf(id)).toBe(3);
    const full = await gw.request("POST", `/api/connectors/${id}/sync`, {
      cookie: a.cookie,
      body: { full: true },
    });
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ status: "COMPLETE", kind: "full", fullReason: "requested" });
    const scanId = (full.body as { scanId: string }).scanId;
    const read = await gw.request("GET", `/api/connectors/${id}/scans/${scanId}`, { key: a.key });
    expect(read.body).toMatchObject({ scanId, kind: "full", fullReason: "requested" });
    // Where its time went, stage by stage (issue 35; packages/scans' scan-stages.int checks the
    // stages against the job's log line): the same on the sync answer and the read.
    const timing = (read.body as { timing: TTiming }).timing;
    expect((full.body as { timing: TTiming }).timing).toEqual(timing);
    const names = timing.stages.map((s) => s.stage);
    expect([names[0], names.at(-1), new Set(names).size]).toEqual(["plan", "handoff", names.length]);
    expect(names).toEqual(expect.arrayContaining(["files", "commit", "persist", "ai_reach"]));
    for (const ms of [timing.queuedMs, timing.totalMs, ...timing.stages.map((s) => s.ms)])
      expect(Number.isInteger(ms) && ms >= 0).toBe(true);
    // The stages add up to the total, to rounding.
    const sum = timing.stages.reduce((a, s) => a + s.ms, 0);
    expect(Math.abs(sum - timing.totalMs)).toBeLessThanOrEqual(timing.stages.length);
  });
});
