import { randomBytes } from "node:crypto";
import { connectors, findings, queryRows, scanDetections, scans } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createBullQueue, type TJobRegistry } from "@posture/jobs";
import { dropPrefix, TEST_REDIS_URL, uniquePrefix } from "@posture/jobs/testing";
import { SCAN_JOB } from "@posture/scans";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildJobRegistry } from "@posture/composition/jobs";
import { insertQueuedScan, seedDemoConnector, waitUntil } from "../testing/seed";
import { spawnScanWorker, type TWorkerProcess } from "../testing/spawn-worker";

const prefix = uniquePrefix("killed-scan");
// Long enough to outlast the scan's longest stretch without yielding to the event loop (the rule
// engine reading the source: under a second here, a few on a loaded machine), short enough for a
// quick takeover.
const LOCK_DURATION_MS = 8_000;
const STALLED_INTERVAL_MS = 1_000;
// Large enough that writing its findings takes a while (some 8,000 findings in batches of 1,000):
// time to see the write under way and kill the worker in the middle of it.
const FILE_COUNT = 50_000;

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };
let testDb: TestDb;
const children: TWorkerProcess[] = [];

beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await testDb.drop();
  await dropPrefix(prefix);
});

function startWorker(env: { DATABASE_URL: string; ENCRYPTION_KEY: string }) {
  const worker = spawnScanWorker({
    ...env,
    REDIS_URL: TEST_REDIS_URL,
    JOBS_PREFIX: prefix,
    LOCK_DURATION_MS: String(LOCK_DURATION_MS),
    STALLED_INTERVAL_MS: String(STALLED_INTERVAL_MS),
  });
  children.push(worker);
  return worker;
}

const scanRow = async (id: string) => {
  const [row] = await testDb.db.select().from(scans).where(eq(scans.id, id));
  if (!row) throw new Error(`scan ${id} not found`);
  return row;
};

/**
 * The scan is staging its findings (in its snapshot's transaction, uncommitted, so invisible to
 * other sessions) or writing them.
 */
async function writingFindings(): Promise<boolean> {
  const rows = await queryRows<{ n: number }>(
    testDb.db,
    sql`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND xact_start IS NOT NULL AND pid <> pg_backend_pid()
          AND (query ILIKE '%INSERT INTO scan_detections%' OR query ILIKE '%INSERT INTO findings%')`,
  );
  return (rows[0]?.n ?? 0) > 0;
}

const stagedRows = async (scanId: string) =>
  (await testDb.db.select().from(scanDetections).where(eq(scanDetections.scanId, scanId))).length;

describe("a scan worker killed mid-scan", () => {
  it("leaves nothing half-written, and another worker completes the scan exactly once", async () => {
    const env = { DATABASE_URL: testDb.url, ENCRYPTION_KEY: randomBytes(32).toString("hex") };
    // The test only enqueues (with the service's own job options); handlers run in the workers.
    const jobs = createBullQueue({ redisUrl: TEST_REDIS_URL, prefix, registry: () => registry });
    const registry: TJobRegistry = buildJobRegistry({
      db: testDb.db,
      jobs,
      runtime: {
        encryptionKey: randomBytes(32),
        publicUrl: "http://localhost:3000",
        webhookAllowPrivateTargets: false,
      },
      log: silent,
    });
    try {
      const { connector } = await seedDemoConnector(testDb.db, FILE_COUNT);
      const scan = await insertQueuedScan(testDb.db, connector);

      const doomed = startWorker(env);
      await doomed.printed("worker up");
      await jobs.enqueue(SCAN_JOB, { scanId: scan.id }, { jobId: scan.id });
      await waitUntil(
        "the scan to run",
        () => scanRow(scan.id),
        (s) => s.status === "RUNNING",
        20_000,
      );
      // The scan streams the workspace into the resource store and stages its findings beside it.
      await waitUntil("the scan to write findings", writingFindings, (w) => w, 60_000, 10);
      await doomed.kill();

      // Its transaction died with it: no finding, no counts, the scan still RUNNING.
      const afterKill = await testDb.db.select().from(findings).where(eq(findings.connectorId, connector.id));
      expect(afterKill).toHaveLength(0);
      expect(await scanRow(scan.id)).toMatchObject({ status: "RUNNING", findingsTotal: 0 });
      expect(await stagedRows(scan.id)).toBe(0);

      // Once the dead worker's lock lapses, the survivor takes the job over and runs it again.
      const survivor = startWorker(env);
      await survivor.printed("worker up");
      const done = await waitUntil(
        "the survivor to complete the scan",
        () => scanRow(scan.id),
        (s) => s.status === "COMPLETE" || s.status === "FAILED",
        90_000,
        100,
      );
      expect(done.status, `${done.error ?? ""} ${survivor.stderr()}`).toBe("COMPLETE");

      const rows = await testDb.db.select().from(findings).where(eq(findings.connectorId, connector.id));
      const [con] = await testDb.db.select().from(connectors).where(eq(connectors.id, connector.id));
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.fingerprint)).size).toBe(rows.length);
      // Written once, by one run: every finding is new to this scan and stamped by it.
      expect(done.findingsTotal).toBe(rows.length);
      expect(done.findingsNew).toBe(rows.length);
      expect(done.findingsResolved).toBe(0);
      expect(done.resources).toBeGreaterThan(FILE_COUNT);
      expect(rows.every((r) => r.lastSeenScanId === scan.id && r.status === "OPEN")).toBe(true);
      expect(new Set(rows.map((r) => r.detectedAt.getTime()))).toEqual(
        new Set([done.completedAt?.getTime()]),
      );
      expect(con).toMatchObject({ findingCount: rows.length, resourceCount: done.resources });
      // The staged detections went with the findings' commit.
      expect(await stagedRows(scan.id)).toBe(0);
      expect(con?.lastScanAt?.getTime()).toBe(done.completedAt?.getTime());
      const connectorScans = await testDb.db.select().from(scans).where(eq(scans.connectorId, connector.id));
      expect(connectorScans.map((s) => [s.id, s.status])).toEqual([[scan.id, "COMPLETE"]]);

      // A fresh rescan finds exactly what is stored: nothing was half-written or left out. It
      // probes each of the ~100,000 stored resources, which takes minutes when CI's full suite
      // shares the machine: the budget is generous, correctness is what is checked here.
      const rescan = await insertQueuedScan(testDb.db, connector);
      await jobs.runAndWait(SCAN_JOB, { scanId: rescan.id }, { jobId: rescan.id, timeoutMs: 180_000 });
      expect(await scanRow(rescan.id)).toMatchObject({
        status: "COMPLETE",
        findingsNew: 0,
        findingsResolved: 0,
        findingsTotal: rows.length,
        resources: done.resources,
      });
      const after = await testDb.db.select().from(findings).where(eq(findings.connectorId, connector.id));
      expect(after).toHaveLength(rows.length);
    } finally {
      await jobs.close();
    }
  }, 420_000);
});
