import { eq, isNull, lt, or } from "drizzle-orm";
import { connectors, newId, scans, trustedDomains, type Db } from "@posture/db";
import {
  createSourceAdapter,
  SourceAuthError,
  type TAppGrant,
  type TConnectorType,
  type TCoverageGap,
  type TSourceAdapter,
  type TTenantSetting,
  type TWorkspace,
} from "@posture/connectors";
import { checksFor, evaluateTenantChecks, type TCheckResult, type TTenantCheck } from "@posture/benchmarks";
import { AppError, decryptSecret, type TJobQueue, type TLogger, type TRuntime } from "@posture/platform";
import { openWorkspaceSnapshot, type TWorkspaceSink } from "@posture/workspace";
import { ingestScanActivity, queueBehaviourRefresh } from "@posture/ueba";
import { createRuleEngine, tenantCheckFindings } from "../engine";
import { ensureDefaultRules } from "./policies";
import { dispatchDeliveries } from "@posture/webhooks";
import { recordScanEvents } from "./scan-events";
import { lockOrg } from "./locks";
import { scheduledScanAllowed } from "./scan-allowance";
import { dropDetections, stageDetections } from "./scan-detections";
import { persistScan } from "./scan-persist";

export const SCAN_JOB = "scan.run";
export const SCAN_SWEEP_JOB = "scan.sweep-due";
export const SCAN_ATTEMPTS = 3;
/** How long POST /sync waits for its scan before answering 202 with the scan still running. */
export const SYNC_WAIT_MS = 120_000;
const DAY_MS = 86_400_000;

export type TScanDeps = {
  db: Db;
  jobs: TJobQueue;
  runtime: TRuntime;
  log: TLogger;
  /** Overridable for tests that point a real-mode connector at a fake source. */
  adapterFor?: (connector: typeof connectors.$inferSelect, runtime: TRuntime) => TSourceAdapter;
  /** The tenant-configuration checks of a source; the benchmark catalogs unless a test injects its own. */
  tenantChecks?: (type: TConnectorType) => readonly TTenantCheck[];
};

export type TScanResult = {
  scanId: string;
  status: "QUEUED" | "RUNNING" | "COMPLETE" | "FAILED";
  resources: number;
  findingsNew: number;
  findingsResolved: number;
  postureScore: number;
  /** What the scan could not read, and why (empty when it read everything). */
  coverage: TCoverageGap[];
};

type TScanRow = typeof scans.$inferSelect;

export function toScanResult(s: TScanRow): TScanResult {
  return {
    scanId: s.id,
    status: s.status,
    resources: s.resources,
    findingsNew: s.findingsNew,
    findingsResolved: s.findingsResolved,
    postureScore: s.postureScore ?? 0,
    coverage: s.coverage ?? [],
  };
}

export function defaultAdapterFor(
  connector: typeof connectors.$inferSelect,
  runtime: TRuntime,
): TSourceAdapter {
  const credentials = connector.credentialsEnc
    ? (JSON.parse(decryptSecret(runtime.encryptionKey, connector.credentialsEnc)) as unknown)
    : undefined;
  return createSourceAdapter({
    type: connector.type,
    mode: connector.mode,
    connectorId: connector.id,
    createdAt: connector.createdAt,
    credentials,
    config: connector.config,
    ...(runtime.sourceEndpoints ? { endpoints: runtime.sourceEndpoints } : {}),
  });
}

export async function failScan(db: Db, scanId: string, error: string) {
  await dropDetections(db, scanId);
  await db
    .update(scans)
    .set({ status: "FAILED", error, completedAt: new Date() })
    .where(eq(scans.id, scanId));
}

type TReadOutcome = {
  resourceCount: number;
  grants: TAppGrant[];
  /** Identifies this attempt's staged detections (scan_detections.run_id). */
  runId: string;
  /** Every tenant check's result (failing ones were staged as findings). */
  tenantChecks: TCheckResult[];
  /** Settings that could not be read, as coverage gaps. */
  settingsGaps: TCoverageGap[];
};

/**
 * The tenant's settings, read after the inventory. Reading them never fails the scan: a source
 * that answers none (an error thrown by the adapter) leaves every check unavailable, said so in
 * the scan's coverage.
 */
async function readTenantSettings(
  adapter: TSourceAdapter,
): Promise<{ settings: TTenantSetting[]; gaps: TCoverageGap[] }> {
  try {
    return { settings: await adapter.tenantSettings(), gaps: [] };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      settings: [],
      gaps: [{ feature: "Tenant settings", missing: "read failed", detail: message.slice(0, 500) }],
    };
  }
}

/** One gap per distinct reason settings were unavailable, naming the settings and the checks skipped. */
function unavailableSettingGaps(
  settings: readonly TTenantSetting[],
  results: readonly TCheckResult[],
): TCoverageGap[] {
  const byReason = new Map<string, string[]>();
  for (const s of settings) {
    if (!("unavailable" in s)) continue;
    byReason.set(s.unavailable, [...(byReason.get(s.unavailable) ?? []), s.key]);
  }
  return [...byReason].map(([reason, keys]) => {
    const skipped = results
      .filter((r) => r.status === "unavailable" && r.check.settings.some((k) => keys.includes(k)))
      .map((r) => r.check.id);
    return {
      feature: "Tenant settings",
      missing: reason,
      detail: `Not read: ${keys.join(", ")}.${skipped.length > 0 ? ` Checks not evaluated: ${skipped.join(", ")}.` : ""}`,
    };
  });
}

/** The adapter's gaps and the unavailable settings', each once. */
export function mergeCoverage(...lists: ReadonlyArray<readonly TCoverageGap[]>): TCoverageGap[] {
  const seen = new Map<string, TCoverageGap>();
  for (const list of lists)
    for (const g of list) {
      const key = JSON.stringify([g.feature, g.missing, g.detail]);
      if (!seen.has(key)) seen.set(key, { feature: g.feature, missing: g.missing, detail: g.detail });
    }
  return [...seen.values()];
}

const YIELD_EVERY = 2_000;

/**
 * Streams the source through the rule engine into the resource store, in one pass: resources are
 * never all held in memory, nor are the findings, which are staged in the snapshot's transaction
 * as they are detected. Demo sources generate synchronously, so the loop yields to the event loop
 * now and then: a 100k-file scan must not stall HTTP (embedded mode) or the worker's lock renewal.
 */
async function readSource(
  adapter: TSourceAdapter,
  scan: { scanId: string; trusted: string[]; now: Date; checks: readonly TTenantCheck[] },
  openStore: (ws: TWorkspace) => Promise<TWorkspaceSink>,
): Promise<TReadOutcome> {
  const ws = await adapter.workspace();
  const engine = createRuleEngine({
    internalDomains: ws.internalDomains,
    trustedDomains: scan.trusted,
    now: scan.now,
  });
  const store = await openStore(ws);
  const runId = newId("run");
  const detections = stageDetections(store.write, { scanId: scan.scanId, runId });
  let resourceCount = 0;
  const grants: TAppGrant[] = [];
  let tenantChecks: TCheckResult[] = [];
  let settingsGaps: TCoverageGap[] = [];
  const counted = async () => {
    if (++resourceCount % YIELD_EVERY === 0) await new Promise(setImmediate);
  };
  try {
    for await (const u of adapter.users()) {
      await detections.add(engine.addUser(u));
      await store.user(u);
      await counted();
    }
    for await (const f of adapter.files()) {
      await detections.add(engine.addFile(f));
      await store.file(f);
      await counted();
    }
    for await (const d of adapter.sharedDrives()) {
      await detections.add(engine.addSharedDrive(d));
      await store.drive(d);
      await counted();
    }
    for await (const g of adapter.appGrants()) {
      engine.addAppGrant(g);
      await store.grant(g);
      grants.push(g);
      await counted();
    }
    await detections.add(engine.finish());
    // The tenant's configuration against its benchmark: failing checks are findings like any other.
    const { settings, gaps } = await readTenantSettings(adapter);
    tenantChecks = evaluateTenantChecks(scan.checks, settings);
    settingsGaps = [...gaps, ...unavailableSettingGaps(settings, tenantChecks)];
    await detections.add(tenantCheckFindings(tenantChecks));
    await detections.flush();
  } catch (err) {
    await store.abort();
    throw err;
  }
  await store.commit();
  return { resourceCount, grants, runId, tenantChecks, settingsGaps };
}

/**
 * The scan job. Idempotent: a scan already COMPLETE or FAILED returns its stored result, and the
 * write happens in one transaction that first re-checks the scan's status.
 */
export async function runScanJob(deps: TScanDeps, scanId: string, attempt: number): Promise<TScanResult> {
  const { db } = deps;
  const [scan] = await db.select().from(scans).where(eq(scans.id, scanId));
  if (!scan) throw new Error(`scan ${scanId} not found`);
  if (scan.status === "COMPLETE" || scan.status === "FAILED") return toScanResult(scan);
  const [connector] = scan.connectorId
    ? await db.select().from(connectors).where(eq(connectors.id, scan.connectorId))
    : [];
  if (!connector) {
    await failScan(db, scanId, "connector was disconnected");
    return { ...toScanResult(scan), status: "FAILED" };
  }
  const now = new Date();
  await db.update(scans).set({ status: "RUNNING", startedAt: now }).where(eq(scans.id, scanId));
  await ensureDefaultRules(db, { orgId: connector.orgId });
  const trusted = (
    await db
      .select({ domain: trustedDomains.domain })
      .from(trustedDomains)
      .where(eq(trustedDomains.orgId, connector.orgId))
  ).map((t) => t.domain);

  const phase = performance.now();
  let read: TReadOutcome;
  let activity: Promise<Date | null> = Promise.resolve(now);
  let activityMs = 0;
  let adapter: TSourceAdapter | undefined;
  try {
    const source = (deps.adapterFor ?? defaultAdapterFor)(connector, deps.runtime);
    adapter = source;
    // Behaviour analytics: the source's activity since the last scan, stored while the inventory
    // is read (on a connection of its own, so the database works on both at once).
    activity = ingestScanActivity(deps, {
      orgId: connector.orgId,
      connectorId: connector.id,
      scanId,
      activity: (since) => source.activity(since),
      now,
    }).finally(() => (activityMs = Math.round(performance.now() - phase)));
    const checks = (deps.tenantChecks ?? checksFor)(connector.type);
    read = await readSource(source, { scanId, trusted, now, checks }, (workspace) =>
      openWorkspaceSnapshot(db, {
        orgId: connector.orgId,
        connectorId: connector.id,
        scanId,
        now,
        workspace,
      }),
    );
  } catch (err) {
    await activity;
    const message = err instanceof Error ? err.message : String(err);
    const authFailure =
      err instanceof SourceAuthError || (err instanceof AppError && err.code === "invalid_input");
    if (!authFailure && attempt < SCAN_ATTEMPTS) throw err;
    // Credentials refused (or the source stayed down through every retry): the connector says so.
    await db
      .update(connectors)
      .set({ healthStatus: "unhealthy", healthDetail: message.slice(0, 500) })
      .where(eq(connectors.id, connector.id));
    await failScan(db, scanId, message.slice(0, 500));
    deps.log.warn({ scanId, connectorId: connector.id, err: message }, "scan failed");
    const [failed] = await db.select().from(scans).where(eq(scans.id, scanId));
    return failed ? toScanResult(failed) : { ...toScanResult(scan), status: "FAILED" };
  }

  const readMs = Math.round(performance.now() - phase);
  let outbox: string[] = [];
  const persistedCoverage = mergeCoverage(adapter?.coverageGaps() ?? [], read.settingsGaps);
  const persisted = await persistScan(db, {
    scanId,
    orgId: connector.orgId,
    connector: { id: connector.id, type: connector.type, displayName: connector.displayName },
    runId: read.runId,
    grants: read.grants,
    resourceCount: read.resourceCount,
    tenantChecks: read.tenantChecks,
    coverage: persistedCoverage,
    now,
    // Transactional outbox: the scan's events commit with its results…
    withinTransaction: async (tx, result) => {
      outbox = await recordScanEvents(tx, {
        orgId: connector.orgId,
        scanId,
        connector: { id: connector.id, displayName: connector.displayName },
        result,
        publicUrl: deps.runtime.publicUrl,
      });
    },
  });
  const persistMs = Math.round(performance.now() - phase) - readMs;
  const changedSince = await activity;
  if (persisted && adapter) {
    // The activity read ran beside the inventory and may have met gaps of its own since.
    const coverage = mergeCoverage(adapter.coverageGaps(), read.settingsGaps);
    if (coverage.length > persistedCoverage.length)
      await db.update(scans).set({ coverage }).where(eq(scans.id, scanId));
  }
  if (persisted) {
    // …and are dispatched after the commit; what a crash here leaves undispatched, the webhook sweep sends.
    await dispatchDeliveries(deps.jobs, outbox);
    await queueBehaviourRefresh(deps, { orgId: connector.orgId, scanId, changedSince });
  }
  const [done] = await db.select().from(scans).where(eq(scans.id, scanId));
  if (!done) throw new Error("scan vanished");
  // Where a scan's time went: reading the source into the store, the findings diff; the activity
  // ran beside them, from the start.
  deps.log.info(
    {
      scanId,
      resources: done.resources,
      readMs,
      persistMs,
      activityMs,
      totalMs: Math.round(performance.now() - phase),
    },
    "scan finished",
  );
  return toScanResult(done);
}

/**
 * The daily schedule: every connector not scanned for a day gets a scheduled scan. The scan id is
 * derived from connector and UTC date, so replicas sweeping at once create and queue it once.
 */
export async function sweepDueScans(deps: TScanDeps, now = new Date()): Promise<number> {
  const due = await deps.db
    .select({ id: connectors.id, orgId: connectors.orgId, displayName: connectors.displayName })
    .from(connectors)
    .where(or(isNull(connectors.lastScanAt), lt(connectors.lastScanAt, new Date(now.getTime() - DAY_MS))));
  let queued = 0;
  const day = now.toISOString().slice(0, 10).replace(/-/g, "");
  for (const c of due) {
    const id = `scn_daily_${c.id}_${day}`;
    const inserted = await deps.db.transaction(async (tx) => {
      await tx.execute(lockOrg(c.orgId, "scans"));
      if (!(await scheduledScanAllowed(tx, c.orgId, now))) return [];
      return tx
        .insert(scans)
        .values({ id, orgId: c.orgId, connectorId: c.id, connectorName: c.displayName, trigger: "scheduled" })
        .onConflictDoNothing()
        .returning({ id: scans.id });
    });
    if (inserted.length === 0) continue;
    await deps.jobs.enqueue(SCAN_JOB, { scanId: id }, { jobId: id });
    queued++;
  }
  return queued;
}
