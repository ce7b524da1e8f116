import { randomBytes } from "node:crypto";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createDemoAdapter,
  SourceAuthError,
  type TActivityEvent,
  type TCoverageGap,
  type TSuiteType,
} from "@posture/connectors";
import { activityEvents, connectors, organizations, scans } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createInProcessQueue, type TJobRegistry } from "@posture/jobs";
import { createLogger, parseEncryptionKey } from "@posture/platform";
import { BEHAVIOUR_REFRESH_JOB } from "@posture/ueba";
import {
  ACTIVITY_ATTEMPTS,
  ACTIVITY_JOB,
  runActivityJob,
  runScanJob,
  scansJobs,
  type TScanDeps,
} from "./index";

// The activity ingestion as a job of its own, after the scan, against the real database and the
// in-process queue: the scan's result does not wait for it; the job stores the events, adds the
// gaps its read met to the scan's coverage and queues the behaviour refresh; a failing read is
// retried while the scan stays COMPLETE; a window read twice stores each event once.

const HOUR = 3_600_000;
const SIGN_INS_GAP: TCoverageGap = {
  feature: "Sign-in activity",
  missing: "AuditLog.Read.All",
  detail: "403 from /auditLogs/signIns",
};

let db: TestDb;
const encryptionKey = parseEncryptionKey(randomBytes(32).toString("hex"));

/** What a test's source does when its activity is read: the events, or a failure, after `gate`. */
type TActivitySource = {
  events: () => TActivityEvent[];
  fail?: (call: number) => Error | null;
  gate?: Promise<void>;
  calls: number;
  running: number;
  maxRunning: number;
};

type THarness = {
  deps: TScanDeps;
  refreshes: Array<{ orgId: string; changedSince?: string }>;
  orgId: string;
  connectorId: string;
  source: TActivitySource;
};

function eventsAt(prefix: string, n: number, now = Date.now()): TActivityEvent[] {
  return Array.from({ length: n }, (_, k) => ({
    id: `${prefix}-${k}`,
    at: new Date(now - (k + 1) * HOUR).toISOString(),
    actorEmail: `person${k % 7}@acme.test`,
    type: k % 2 ? "file_access" : "login",
  }));
}

async function harness(source: Partial<TActivitySource> = {}): Promise<THarness> {
  const [org] = await db.db
    .insert(organizations)
    .values({ name: "Activity Co", plan: "business" })
    .returning();
  const [c] = await db.db
    .insert(connectors)
    .values({ orgId: org?.id ?? "", type: "google_workspace", displayName: "Drive", mode: "demo" })
    .returning();
  if (!org || !c) throw new Error("seed failed");
  const src: TActivitySource = { events: () => [], calls: 0, running: 0, maxRunning: 0, ...source };
  const refreshes: THarness["refreshes"] = [];
  const gaps: TCoverageGap[] = [];
  let registry: TJobRegistry = {};
  const deps: TScanDeps = {
    db: db.db,
    jobs: createInProcessQueue(() => registry),
    runtime: { encryptionKey, publicUrl: "http://localhost", webhookAllowPrivateTargets: false },
    log: createLogger("silent"),
    adapterFor: (connector) => {
      const demo = createDemoAdapter({
        seed: connector.id,
        type: connector.type as TSuiteType,
        fileCount: 20,
      });
      return {
        ...demo,
        coverageGaps: () => [...gaps],
        async *activity() {
          const call = ++src.calls;
          src.running++;
          src.maxRunning = Math.max(src.maxRunning, src.running);
          try {
            await src.gate;
            const failure = src.fail?.(call);
            if (failure) throw failure;
            gaps.push(SIGN_INS_GAP);
            yield* src.events();
          } finally {
            src.running--;
          }
        },
      };
    },
    tenantChecks: () => [],
  };
  const scanJobs = scansJobs.definitions(deps);
  const activity = scanJobs[ACTIVITY_JOB];
  if (!activity) throw new Error("no activity job");
  registry = {
    ...scanJobs,
    // The real job, its back-off shortened for the test.
    [ACTIVITY_JOB]: { ...activity, backoffMs: 20 },
    [BEHAVIOUR_REFRESH_JOB]: {
      attempts: 1,
      backoffMs: 0,
      handler: async (data) => {
        refreshes.push(data as THarness["refreshes"][number]);
      },
    },
  };
  return { deps, refreshes, orgId: org.id, connectorId: c.id, source: src };
}

async function scan(h: THarness) {
  const [row] = await db.db
    .insert(scans)
    .values({ orgId: h.orgId, connectorId: h.connectorId, connectorName: "Drive", trigger: "manual" })
    .returning();
  if (!row) throw new Error("no scan");
  return runScanJob(h.deps, row.id, 1);
}

const storedCount = async (connectorId: string) =>
  (
    await db.db.select({ n: count() }).from(activityEvents).where(eq(activityEvents.connectorId, connectorId))
  )[0]?.n ?? 0;

const coverageOf = async (scanId: string) =>
  (await db.db.select({ coverage: scans.coverage }).from(scans).where(eq(scans.id, scanId)))[0]?.coverage;

const statusOf = async (scanId: string) =>
  (await db.db.select({ status: scans.status }).from(scans).where(eq(scans.id, scanId)))[0]?.status;

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

describe("the activity job after a scan", { timeout: 60_000 }, () => {
  it("the scan completes without the activity; the job then stores it, adds its gaps and queues the refresh", async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const h = await harness({ events: () => eventsAt("a", 30), gate });

    const result = await scan(h);
    expect(result.status).toBe("COMPLETE");
    expect(result.coverage).toEqual([]);
    // The scan's result came back while the source's activity was still being read.
    await vi.waitFor(() => expect(h.source.running).toBe(1));
    expect(await storedCount(h.connectorId)).toBe(0);
    expect(h.refreshes).toEqual([]);

    release();
    await vi.waitFor(() => expect(h.refreshes).toHaveLength(1), { timeout: 10_000 });
    expect(await storedCount(h.connectorId)).toBe(30);
    expect(await coverageOf(result.scanId)).toEqual([SIGN_INS_GAP]);
    // From the earliest event stored: the recomputation starts there.
    expect(h.refreshes[0]?.orgId).toBe(h.orgId);
    const [first] = await db.db
      .select({ at: activityEvents.at })
      .from(activityEvents)
      .where(and(eq(activityEvents.connectorId, h.connectorId), eq(activityEvents.externalId, "a-29")));
    expect(h.refreshes[0]?.changedSince).toBe(first?.at.toISOString());
    await h.deps.jobs.close();
  });

  it("a failing read is retried with back-off and the scan stays COMPLETE", async () => {
    const h = await harness({
      events: () => eventsAt("r", 12),
      fail: (call) => (call < 3 ? new Error(`reports API 503 (try ${call})`) : null),
    });
    const result = await scan(h);
    expect(result.status).toBe("COMPLETE");
    await vi.waitFor(() => expect(h.refreshes).toHaveLength(1), { timeout: 10_000 });
    expect(h.source.calls).toBe(3);
    expect(await storedCount(h.connectorId)).toBe(12);
    expect(h.refreshes[0]?.changedSince).toBeDefined();
    expect(await statusOf(result.scanId)).toBe("COMPLETE");
    await h.deps.jobs.close();
  });

  it("gives up after its last try, or at once on refused credentials: the refresh covers the whole horizon", async () => {
    const down = await harness({ fail: () => new Error("reports API 503") });
    const scanned = await scan(down);
    await vi.waitFor(() => expect(down.refreshes).toHaveLength(1), { timeout: 10_000 });
    expect(down.source.calls).toBe(ACTIVITY_ATTEMPTS);
    // No changedSince: part of the window may have landed before the failure.
    expect(down.refreshes[0]).toEqual({ orgId: down.orgId });
    expect(await statusOf(scanned.scanId)).toBe("COMPLETE");
    await down.deps.jobs.close();

    const refused = await harness({ fail: () => new SourceAuthError("unauthorized_client") });
    const [row] = await db.db
      .insert(scans)
      .values({
        orgId: refused.orgId,
        connectorId: refused.connectorId,
        connectorName: "Drive",
        trigger: "manual",
        status: "COMPLETE",
        completedAt: new Date(),
      })
      .returning();
    const out = await runActivityJob(
      refused.deps,
      { connectorId: refused.connectorId, scanId: row?.id ?? "" },
      1,
    );
    expect(out).toMatchObject({ rounds: 1, inserted: 0, failed: "unauthorized_client" });
    expect(refused.source.calls).toBe(1);
    await vi.waitFor(() => expect(refused.refreshes).toEqual([{ orgId: refused.orgId }]));
    // The connector is not marked: a scan that meets refused credentials does that.
    const [connector] = await db.db.select().from(connectors).where(eq(connectors.id, refused.connectorId));
    expect(connector?.healthStatus).not.toBe("unhealthy");
    await refused.deps.jobs.close();
  });

  it("two ingestions of the same window store each event once, whether in turn or at once", async () => {
    const h = await harness({ events: () => eventsAt("w", 25) });
    const [row] = await db.db
      .insert(scans)
      .values({
        orgId: h.orgId,
        connectorId: h.connectorId,
        connectorName: "Drive",
        trigger: "manual",
        status: "COMPLETE",
        completedAt: new Date(),
      })
      .returning();
    const job = { connectorId: h.connectorId, scanId: row?.id ?? "" };
    expect((await runActivityJob(h.deps, job, 1)).inserted).toBe(25);
    expect((await runActivityJob(h.deps, job, 1)).inserted).toBe(0);
    // Two at once (a crashed job's re-delivery beside its retry): still once each.
    const both = await Promise.all([runActivityJob(h.deps, job, 1), runActivityJob(h.deps, job, 1)]);
    expect(both.map((r) => r.inserted)).toEqual([0, 0]);
    expect(await storedCount(h.connectorId)).toBe(25);

    const fresh = await harness({ events: () => eventsAt("x", 25) });
    const [scanRow] = await db.db
      .insert(scans)
      .values({
        orgId: fresh.orgId,
        connectorId: fresh.connectorId,
        connectorName: "Drive",
        trigger: "manual",
        status: "COMPLETE",
        completedAt: new Date(),
      })
      .returning();
    const first = { connectorId: fresh.connectorId, scanId: scanRow?.id ?? "" };
    // Both first ingestions take the plain COPY path; the loser's collision falls back to the deduplicated insert.
    const racing = await Promise.all([
      runActivityJob(fresh.deps, first, 1),
      runActivityJob(fresh.deps, first, 1),
    ]);
    expect(racing.reduce((s, r) => s + r.inserted, 0)).toBe(25);
    expect(await storedCount(fresh.connectorId)).toBe(25);
    await h.deps.jobs.close();
    await fresh.deps.jobs.close();
  });

  it("scans in a row share one ingestion at a time; a scan finished meanwhile gets its own round", async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    // The source's log grows between the two scans.
    const s1 = eventsAt("s1", 10);
    const s2 = eventsAt("s2", 10);
    let reads = 0;
    const h = await harness({ events: () => (++reads === 1 ? s1 : [...s1, ...s2]), gate });
    const one = await scan(h);
    await vi.waitFor(() => expect(h.source.running).toBe(1));
    const two = await scan(h);
    expect(two.status).toBe("COMPLETE");
    release();
    await vi.waitFor(() => expect(h.refreshes).toHaveLength(2), { timeout: 10_000 });
    expect(h.source.maxRunning).toBe(1);
    expect(h.source.calls).toBe(2);
    expect(await storedCount(h.connectorId)).toBe(20);
    expect(await coverageOf(one.scanId)).toEqual([SIGN_INS_GAP]);
    expect(await coverageOf(two.scanId)).toEqual([SIGN_INS_GAP]);
    await h.deps.jobs.close();
  });
});
