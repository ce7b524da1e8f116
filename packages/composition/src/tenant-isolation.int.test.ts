import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectors, organizations, scans, webhookDeliveries, webhookSubscriptions } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createBullQueue, startWorkers, type TJobRegistry, type TWorkers } from "@posture/jobs";
import { dropPrefix, TEST_REDIS_URL, uniquePrefix } from "@posture/jobs/testing";
import { encryptSecret, type TRuntime } from "@posture/platform";
import { SCAN_JOB } from "@posture/scans";
import { emitEvent, startReceiver, type TReceiver } from "@posture/webhooks/testing";
import { buildJobRegistry } from "./index";

// One organization's slow webhook receiver must not stall another organization's work: scans and
// deliveries have workers of their own, and one organization holds at most its share of the
// delivery workers. Real PostgreSQL, real Redis, the service's real job registry on BullMQ.

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };
const prefixes: string[] = [];
let testDb: TestDb;
const receivers: TReceiver[] = [];
const closers: (() => Promise<void>)[] = [];

const runtime: TRuntime = {
  encryptionKey: randomBytes(32),
  publicUrl: "http://localhost:3000",
  webhookAllowPrivateTargets: true,
};

beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await Promise.all(receivers.map((r) => r.close()));
  for (const p of prefixes) await dropPrefix(p);
  await testDb.drop();
});

/** The service's queue and workers, on a key prefix of the test's own. */
function service(workerOpts: { deliveries?: { concurrency: number; perOrg: number } } = {}) {
  const prefix = uniquePrefix("tenants");
  prefixes.push(prefix);
  const jobs = createBullQueue({ redisUrl: TEST_REDIS_URL, prefix, registry: () => registry });
  const registry: TJobRegistry = buildJobRegistry({ db: testDb.db, jobs, runtime, log: silent });
  const workers: TWorkers = startWorkers({
    redisUrl: TEST_REDIS_URL,
    prefix,
    registry,
    log: silent,
    // The defaults, except where a test names its own; re-delays at an organization's cap are short here.
    ...(workerOpts.deliveries ? { queues: { deliveries: workerOpts.deliveries } } : {}),
    orgRetryDelayMs: 200,
    // The pre-split single queue took this option as its one concurrency.
    concurrency: 4,
  });
  closers.push(
    () => jobs.close(),
    () => workers.close(),
  );
  return { jobs };
}

async function org() {
  const [o] = await testDb.db
    .insert(organizations)
    .values({ name: `Org ${randomBytes(3).toString("hex")}`, plan: "business" })
    .returning();
  if (!o) throw new Error("org insert failed");
  return o.id;
}

async function subscribe(orgId: string, url: string) {
  await testDb.db.insert(webhookSubscriptions).values({
    orgId,
    url,
    events: ["policy.violation"],
    secretEnc: encryptSecret(runtime.encryptionKey, "whsec_test"),
  });
}

async function emitMany(jobs: Parameters<typeof emitEvent>[1], orgId: string, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { deliveryIds } = await emitEvent(testDb.db, jobs, {
      orgId,
      type: "policy.violation",
      data: { ruleId: `rule-${i}`, severity: "HIGH", count: 1 },
    });
    ids.push(...deliveryIds);
  }
  return ids;
}

async function queuedScan(orgId: string) {
  const [connector] = await testDb.db
    .insert(connectors)
    .values({
      orgId,
      type: "google_workspace",
      displayName: "Small",
      mode: "demo",
      config: { fileCount: 50 },
    })
    .returning();
  if (!connector) throw new Error("connector insert failed");
  const [scan] = await testDb.db
    .insert(scans)
    .values({ orgId, connectorId: connector.id, connectorName: "Small", trigger: "manual" })
    .returning();
  if (!scan) throw new Error("scan insert failed");
  return scan.id;
}

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// (This package does not depend on drizzle-orm: rows are read whole and picked here.)
const deliveredCount = async (ids: string[]) => {
  const rows = await testDb.db
    .select({ id: webhookDeliveries.id, status: webhookDeliveries.status })
    .from(webhookDeliveries);
  return rows.filter((r) => ids.includes(r.id) && r.status === "delivered").length;
};
const scanStatus = async (scanId: string) =>
  (await testDb.db.select({ id: scans.id, status: scans.status }).from(scans)).find((s) => s.id === scanId)
    ?.status;

describe("one organization's slow webhook receiver", () => {
  it("does not delay another organization's scan", async () => {
    const { jobs } = service();
    // Organization A's receiver holds every request until the 10 s delivery timeout.
    const slow = await startReceiver(() => "hang");
    receivers.push(slow);
    const orgA = await org();
    await subscribe(orgA, slow.url);
    await emitMany(jobs, orgA, 16);
    await waitFor(
      "A's receiver to be busy",
      async () => (slow.received.length >= 2 ? true : undefined),
      10_000,
    );

    const orgB = await org();
    const scanId = await queuedScan(orgB);
    const queuedAt = Date.now();
    await jobs.enqueue(SCAN_JOB, { scanId }, { jobId: scanId });
    await waitFor(
      "B's scan to complete",
      async () => ((await scanStatus(scanId)) === "COMPLETE" ? true : undefined),
      30_000,
    );
    // A 50-file demo scan takes about a second; with all the workers held by A's deliveries it
    // waited for their 10 s timeouts (minutes, with enough deliveries queued).
    expect(Date.now() - queuedAt).toBeLessThan(5_000);
  }, 60_000);

  it("holds at most its per-organization share of the delivery workers, and others still deliver", async () => {
    const { jobs } = service({ deliveries: { concurrency: 6, perOrg: 2 } });
    // A's receiver answers each request after 1.5 s, counting how many it holds at once.
    let holding = 0;
    let mostAtOnce = 0;
    const a = await startReceiver((_req, _i, res) => {
      holding++;
      mostAtOnce = Math.max(mostAtOnce, holding);
      setTimeout(() => {
        holding--;
        res.writeHead(200).end("ok");
      }, 1_500);
      return "hang";
    });
    const fast = await startReceiver(() => 200);
    receivers.push(a, fast);
    const orgA = await org();
    await subscribe(orgA, a.url);
    const aIds = await emitMany(jobs, orgA, 8);
    await waitFor("A's receiver to be busy", async () => (a.received.length >= 1 ? true : undefined), 10_000);

    const orgC = await org();
    await subscribe(orgC, fast.url);
    const startedAt = Date.now();
    const cIds = await emitMany(jobs, orgC, 3);
    await waitFor(
      "C's deliveries",
      async () => ((await deliveredCount(cIds)) === 3 ? true : undefined),
      10_000,
    );
    // C was not queued behind A's eight slow deliveries (four rounds of 1.5 s at A's share).
    expect(Date.now() - startedAt).toBeLessThan(3_000);

    await waitFor(
      "A's deliveries",
      async () => ((await deliveredCount(aIds)) === 8 ? true : undefined),
      30_000,
    );
    // Six delivery workers, but never more than two of A's requests at once.
    expect(mostAtOnce).toBe(2);
  }, 60_000);
});
