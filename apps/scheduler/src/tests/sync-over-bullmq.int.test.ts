import { connectors, findings, scans } from "@posture/db";
import { createBullQueue, type TJobRegistry } from "@posture/jobs";
import { dropPrefix, TEST_REDIS_URL, uniquePrefix } from "@posture/jobs/testing";
import { sweepDueScans } from "@posture/scans";
import { eq } from "drizzle-orm";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Neither app depends on the other (both take their jobs from @posture/composition); the
// gateway's test harness is not part of its exports, so it is reached by path.
import { startTestGateway, type TTestGateway } from "../../../gateway/src/testing";
import { buildJobRegistry, type TJobDeps } from "@posture/composition/jobs";
import { startScheduler, type TScheduler } from "../scheduler";
import { waitUntil } from "../testing/seed";

type TScan = {
  scanId: string;
  status: string;
  resources: number;
  findingsNew: number;
  findingsResolved: number;
  postureScore: number;
};

const prefix = uniquePrefix("sync-bullmq");
const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

// The gateway enqueues on the real BullMQ queue and waits; the scheduler's workers run the jobs.
let registry: TJobRegistry | undefined;
const jobs = createBullQueue({
  redisUrl: TEST_REDIS_URL,
  prefix,
  registry: () => {
    if (!registry) throw new Error("job registry used before the gateway started");
    return registry;
  },
});
let gw: TTestGateway;
let deps: TJobDeps;
let scheduler: TScheduler | undefined;
let redis: Redis | undefined;

beforeAll(async () => {
  gw = await startTestGateway({ jobs });
  deps = { db: gw.db.db, jobs, runtime: gw.gateway.deps.runtime, log: silent };
  registry = buildJobRegistry(deps);
  scheduler = startScheduler({ redisUrl: TEST_REDIS_URL, prefix, registry, log: silent });
});
afterAll(async () => {
  redis?.disconnect();
  await scheduler?.close();
  await gw?.close();
  await jobs.close();
  await dropPrefix(prefix);
});

async function connectDemo(cookie: string, fileCount: number) {
  const res = await gw.request("POST", "/api/connectors", {
    cookie,
    body: { type: "google_workspace", displayName: "Demo Drive", mode: "demo", config: { fileCount } },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

/** The job as BullMQ keeps it in Redis, on the scans queue (scan ids need no escaping to be job ids). */
async function bullJob(jobId: string) {
  redis ??= new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  // The completed set first: BullMQ writes the return value and that set in one script, so a job
  // seen completed has its return value (read the other way round, a job finishing between the
  // two reads looks completed without one).
  const completed = await redis.zscore(`${prefix}:scans:completed`, jobId);
  const job = await redis.hgetall(`${prefix}:scans:${jobId}`);
  return {
    name: job.name,
    completed: completed !== null,
    result: job.returnvalue ? (JSON.parse(job.returnvalue) as TScan) : undefined,
  };
}

const findingsOf = (connectorId: string) =>
  gw.db.db.select().from(findings).where(eq(findings.connectorId, connectorId));

describe("scans over the BullMQ queue", () => {
  it("POST /sync is answered with the scan a scheduler worker ran; a second sync finds nothing new", async () => {
    const a = await gw.createActor({ plan: "business", role: "OWNER" });
    const connector = await connectDemo(a.cookie, 500);

    const first = await gw.request("POST", `/api/connectors/${connector.id}/sync`, { cookie: a.cookie });
    expect(first.status).toBe(200);
    const s1 = first.body as TScan;
    expect(s1).toMatchObject({ status: "COMPLETE", findingsResolved: 0 });
    expect(s1.resources).toBeGreaterThan(500);
    expect(s1.findingsNew).toBeGreaterThan(0);
    const rows = await findingsOf(connector.id);
    expect(rows).toHaveLength(s1.findingsNew);
    expect(rows.every((r) => r.lastSeenScanId === s1.scanId)).toBe(true);
    expect(await bullJob(s1.scanId)).toEqual({ name: "scan.run", completed: true, result: s1 });

    const second = await gw.request("POST", `/api/connectors/${connector.id}/sync`, { cookie: a.cookie });
    expect(second.status).toBe(200);
    const s2 = second.body as TScan;
    expect(s2.scanId).not.toBe(s1.scanId);
    expect(s2).toMatchObject({
      status: "COMPLETE",
      resources: s1.resources,
      findingsNew: 0,
      findingsResolved: 0,
      postureScore: s1.postureScore,
    });
    expect(await findingsOf(connector.id)).toHaveLength(rows.length);

    const listed = await gw.request("GET", "/api/connectors", { key: a.key });
    const shown = (listed.body as { connectors: Array<{ id: string; findingCount: number }> }).connectors;
    expect(shown.find((c) => c.id === connector.id)?.findingCount).toBe(rows.length);
  });

  it("two sweeps at once queue a connector's daily scan once, and a worker completes it", async () => {
    const a = await gw.createActor({ plan: "business", role: "OWNER" });
    const connector = await connectDemo(a.cookie, 300);
    const now = new Date();
    const scanId = `scn_daily_${connector.id}_${now.toISOString().slice(0, 10).replace(/-/g, "")}`;

    const queued = await Promise.all([sweepDueScans(deps, now), sweepDueScans(deps, now)]);
    expect(queued[0] + queued[1]).toBe(1);

    const done = await waitUntil(
      "the scheduled scan to finish",
      () => gw.db.db.select().from(scans).where(eq(scans.connectorId, connector.id)),
      (rows) => rows.length > 0 && rows.every((s) => s.status === "COMPLETE" || s.status === "FAILED"),
      20_000,
      50,
    );
    expect(done.map((s) => [s.id, s.trigger, s.status])).toEqual([[scanId, "scheduled", "COMPLETE"]]);
    // The scan row commits before the handler returns; BullMQ marks the job completed just after.
    const job = await waitUntil(
      "BullMQ to mark the job completed",
      () => bullJob(scanId),
      (j) => j.completed,
      10_000,
      50,
    );
    expect(job).toMatchObject({ name: "scan.run", completed: true, result: { scanId } });
    const rows = await findingsOf(connector.id);
    expect(rows.length).toBeGreaterThan(0);
    expect(done[0]).toMatchObject({ findingsNew: rows.length, findingsTotal: rows.length });
    const [con] = await gw.db.db.select().from(connectors).where(eq(connectors.id, connector.id));
    expect(con?.lastScanAt?.getTime()).toBe(done[0]?.completedAt?.getTime());

    // Scanned today, the connector is no longer due: a later sweep queues nothing.
    expect(await sweepDueScans(deps, new Date())).toBe(0);
  });
});
