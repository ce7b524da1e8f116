import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scans } from "@posture/db";
import { createBullQueue } from "@posture/jobs";
import type { TJobQueue } from "@posture/platform";
import { SCAN_JOB } from "@posture/scans";
import { startTestGateway, type TTestGateway } from "../../testing";

// The durable queue pointed at a port where no Redis listens: what a sync does when Redis is down.
let gw: TTestGateway;
let jobs: TJobQueue;
beforeAll(async () => {
  // The scan job is registered (its handler would never be reached): only Redis is missing.
  jobs = createBullQueue({
    redisUrl: "redis://127.0.0.1:1",
    prefix: "queue-down-test",
    registry: {
      [SCAN_JOB]: { handler: () => Promise.reject(new Error("unreachable")), attempts: 1, backoffMs: 0 },
    },
  });
  gw = await startTestGateway({ jobs });
});
afterAll(async () => {
  await gw.close();
  await jobs.close();
});

describe("sync while the job queue is unreachable", () => {
  it("answers 503 promptly and leaves no scan waiting for a worker that will never come", async () => {
    const a = await gw.createActor({ plan: "business" });
    const created = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "google_workspace", displayName: "Q", mode: "demo", config: { fileCount: 20 } },
    });
    const id = (created.body as { id: string }).id;
    const started = Date.now();
    const res = await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: "service_unavailable" });
    expect(Date.now() - started).toBeLessThan(15_000);
    const rows = await gw.db.db.select().from(scans).where(eq(scans.connectorId, id));
    expect(rows.map((r) => r.status)).toEqual(["FAILED"]);
    // The health check still answers (the gateway's own Redis is fine here).
    expect((await gw.request("GET", "/api/health")).status).toBe(200);
  });
});
