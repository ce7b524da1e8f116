import { and, eq, inArray } from "drizzle-orm";
import { checksFor } from "@posture/benchmarks";
import type { TSourceAdapter } from "@posture/connectors";
import {
  connectors,
  errorReason,
  refreshAiReach,
  organizations,
  queryErrorFields,
  scans,
  trustedDomains,
  type Db,
} from "@posture/db";
import {
  DEFAULT_BROAD_GROUP_THRESHOLD,
  ensureDefaultRules,
  failScan,
  persistScan,
  recordScanEvents,
  toScanResult,
  type TPersistResult,
  type TScanResult,
} from "@posture/posture";
import { planPrevention, startPreventionApplies, type TWriterFor } from "@posture/remediation";
import { dispatchDeliveries } from "@posture/webhooks";
import { openWorkspaceSnapshot } from "@posture/workspace";
import { queueActivity, refusedBySource } from "./activity-job";
import { defaultAdapterFor } from "./adapter";
import { dropCursor, orphanedFileFindings, planScan, saveCursor } from "./cursor";
import { SCAN_ATTEMPTS, type TConnectorRow, type TScanDeps } from "./deps";
import { readSource, type TCommittedRead } from "./read-source";
import { queuePartnerRefresh } from "./partner-refresh";
import { mergeCoverage } from "./tenant-settings";
import { stageClock } from "./stage-clock";

type TScanRow = typeof scans.$inferSelect;

/** The scan's deps; a test may give the writer prevention rules judge reversibility with. */
type TScanJobDeps = TScanDeps & { writerFor?: TWriterFor };

/** A scan about to read: its row, its connector and source, and what the rules need to know. */
type TStartedScan = {
  scan: TScanRow;
  connector: TConnectorRow;
  adapter: TSourceAdapter;
  trusted: string[];
  /** The organization's broad-group threshold (internal exposure). */
  broadGroupThreshold: number;
  now: Date;
};

/**
 * The scan job, one stage after another: start → plan → read the source into the rules and the
 * store → commit the snapshot → findings, score, cursor and events in one transaction → dispatch
 * the events → queue the connector's activity job (`runActivityJob`: the source's activity
 * stored, its coverage gaps added to this scan, then the behaviour refresh). The scan's result
 * never waits for the activity. Idempotent: a scan already COMPLETE or FAILED returns its stored
 * result, and the findings transaction first re-checks the scan's status.
 *
 * A try that throws is logged with the scan id and the reason (a failed query's PostgreSQL error:
 * message and SQLSTATE, not drizzle's "Failed query" text), and thrown again for the queue to
 * retry; the last try's failure also fails the scan, so no scan is left RUNNING with no job.
 */
export async function runScanJob(deps: TScanJobDeps, scanId: string, attempt: number): Promise<TScanResult> {
  try {
    return await runScan(deps, scanId, attempt);
  } catch (err) {
    const final = attempt >= SCAN_ATTEMPTS;
    deps.log.error(
      { scanId, attempt, final, ...queryErrorFields(err) },
      final ? "scan job failed" : "scan job failed; will retry",
    );
    if (final) await failUnfinished(deps.db, scanId, errorReason(err));
    throw err;
  }
}

/** The last try failed: the scan fails too, unless it had finished (a failure after its commit). */
async function failUnfinished(db: Db, scanId: string, reason: string): Promise<void> {
  const [row] = await db
    .select({ id: scans.id })
    .from(scans)
    .where(and(eq(scans.id, scanId), inArray(scans.status, ["QUEUED", "RUNNING"])))
    .catch(() => []);
  if (row) await failScan(db, scanId, reason.slice(0, 500)).catch(() => {});
}

async function runScan(deps: TScanJobDeps, scanId: string, attempt: number): Promise<TScanResult> {
  const started = await startScan(deps, scanId, attempt);
  if ("result" in started) return started.result;
  const { scan, connector, adapter, now } = started;
  const clock = stageClock();

  let read: TCommittedRead;
  try {
    const plan = await planScan(deps.db, {
      connectorId: connector.id,
      adapter,
      fullRequested: scan.fullReason === "requested",
    });
    clock.mark("plan");
    read = await readSource(adapter, plan, {
      scanId,
      trusted: started.trusted,
      broadGroupThreshold: started.broadGroupThreshold,
      now,
      checks: (deps.tenantChecks ?? checksFor)(connector.type),
      openStore: (workspace, mode) =>
        openWorkspaceSnapshot(deps.db, {
          orgId: connector.orgId,
          connectorId: connector.id,
          scanId,
          now,
          workspace,
          mode,
        }),
      orphans: () => orphanedFileFindings(deps.db, connector.id),
      announce: (kind, fullReason) => announceKind(deps.db, scanId, kind, fullReason),
      mark: clock.mark,
    });
  } catch (err) {
    return failOrRetry(deps, started, err, attempt);
  }
  const coverage = mergeCoverage(adapter.coverageGaps(), read.settingsGaps);
  const persisted = await persistFindings(deps, started, read, coverage);
  clock.mark("persist");

  if (persisted) {
    // What AI assistants and agents can reach, from the store just committed (issue 30): GET
    // /api/exposure/ai reads these rows. A failure here leaves the scan complete; the next read
    // computes the connector again.
    await refreshAiReach(
      deps.db,
      { orgId: connector.orgId, connectorId: connector.id },
      read.reachCarry,
    ).catch((err: unknown) =>
      deps.log.warn({ scanId, ...queryErrorFields(err) }, "AI reach not stored; the next read computes it"),
    );
    clock.mark("ai_reach");
    const { outbox, applying } = persisted;
    // What a crash here leaves undispatched, the webhook sweep sends.
    await dispatchDeliveries(deps.jobs, outbox);
    // Prevention's plans under the change cap are APPLYING already: a crash here leaves them to
    // the remediation sweep, which queues their jobs.
    await startPreventionApplies(deps.jobs, applying);
    // The hand-off to behaviour analytics: a job of its own, one per connector at a time. A crash
    // here loses only the queueing: the next scan's ingestion reads from the last event stored.
    await queueActivity(deps, { connectorId: connector.id, scanId });
    // A managed client's partner recomputes its drift and the cross-client radar (issue 17).
    await queuePartnerRefresh(deps, connector.orgId);
    clock.mark("handoff");
  }
  // Each stage's ms on the scan's row (GET /api/connectors/{id}/scans/{scanId}, `timing`) and in
  // the log: an operator sees where the time went without the logs, a bench reads it over HTTP.
  const timing = clock.timing(started.now.getTime() - started.scan.createdAt.getTime());
  const [done] = await deps.db
    .update(scans)
    .set({ timing })
    .where(and(eq(scans.id, scanId), eq(scans.status, "COMPLETE")))
    .returning();
  const row = done ?? (await deps.db.select().from(scans).where(eq(scans.id, scanId)))[0];
  if (!row) throw new Error("scan vanished");
  deps.log.info(
    {
      scanId,
      kind: row.kind,
      fullReason: row.fullReason,
      resources: row.resources,
      // Queued before it started (a worker busy with other scans), then each stage's ms.
      queuedMs: timing.queuedMs,
      stages: clock.read(),
    },
    "scan finished",
  );
  return toScanResult(row);
}

/** The scan's row and connector; RUNNING from here. A finished scan, or a disconnected source, ends the job. */
async function startScan(
  deps: TScanDeps,
  scanId: string,
  attempt: number,
): Promise<TStartedScan | { result: TScanResult }> {
  const { db } = deps;
  const [scan] = await db.select().from(scans).where(eq(scans.id, scanId));
  if (!scan) throw new Error(`scan ${scanId} not found`);
  if (scan.status === "COMPLETE" || scan.status === "FAILED") return { result: toScanResult(scan) };
  const [connector] = scan.connectorId
    ? await db.select().from(connectors).where(eq(connectors.id, scan.connectorId))
    : [];
  if (!connector) {
    await failScan(db, scanId, "connector was disconnected");
    return { result: { ...toScanResult(scan), status: "FAILED" } };
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
  let adapter: TSourceAdapter;
  try {
    adapter = deps.adapterFor
      ? deps.adapterFor(connector, deps.runtime)
      : await defaultAdapterFor(connector, deps.runtime, db);
  } catch (err) {
    // Credentials or config the source cannot be read with.
    return { result: await failOrRetry(deps, { scan, connector }, err, attempt) };
  }
  const [org] = await db
    .select({ broadGroupThreshold: organizations.broadGroupThreshold })
    .from(organizations)
    .where(eq(organizations.id, connector.orgId));
  const broadGroupThreshold = org?.broadGroupThreshold ?? DEFAULT_BROAD_GROUP_THRESHOLD;
  return { scan, connector, adapter, trusted, broadGroupThreshold, now };
}

async function announceKind(
  db: Db,
  scanId: string,
  kind: "full" | "incremental",
  fullReason: TScanRow["fullReason"],
) {
  await db.update(scans).set({ kind, fullReason }).where(eq(scans.id, scanId));
}

/**
 * One transaction: the staged detections diffed into the findings (only the read's files', for an
 * incremental scan), the score, the feeds' cursor, the scan's events in the outbox. Returns the
 * deliveries to dispatch, or null when another attempt had finished the scan.
 */
async function persistFindings(
  deps: TScanJobDeps,
  { scan, connector, now }: TStartedScan,
  read: TCommittedRead,
  coverage: ReturnType<typeof mergeCoverage>,
): Promise<{ outbox: string[]; applying: string[] } | null> {
  let outbox: string[] = [];
  let applying: string[] = [];
  const persisted = await persistScan(deps.db, {
    scanId: scan.id,
    orgId: connector.orgId,
    connector: { id: connector.id, type: connector.type, displayName: connector.displayName },
    runId: read.runId,
    ...(read.fileScope ? { fileScope: read.fileScope } : {}),
    grants: read.grants,
    resourceCount: read.resourceCount,
    tenantChecks: read.tenantChecks,
    coverage,
    now,
    withinTransaction: async (tx, result: TPersistResult) => {
      // The cursor commits with the findings it led to: a scan that dies before here leaves the
      // previous one, and the next scan reads the same changes again.
      if (read.cursor)
        await saveCursor(tx, {
          orgId: connector.orgId,
          connectorId: connector.id,
          scanId: scan.id,
          cursor: read.cursor,
          rulesKey: read.rulesKey,
          now,
        });
      else await dropCursor(tx, connector.id);
      outbox = await recordScanEvents(tx, {
        orgId: connector.orgId,
        scanId: scan.id,
        connector: { id: connector.id, displayName: connector.displayName },
        result,
        publicUrl: deps.runtime.publicUrl,
      });
      // Prevention rules that act plan (and, under the cap, start) their remediations with the
      // findings they act on. In a savepoint: a plan that cannot be made never fails the scan.
      try {
        const prevention = await tx.transaction((sp) =>
          planPrevention(
            sp as unknown as Db,
            {
              orgId: connector.orgId,
              connectorId: connector.id,
              scanId: scan.id,
              now,
              runtime: deps.runtime,
            },
            deps.writerFor ? { writerFor: deps.writerFor } : {},
          ),
        );
        outbox.push(...prevention.deliveryIds);
        applying = prevention.applying;
      } catch (err) {
        deps.log.warn(
          { scanId: scan.id, err: err instanceof Error ? err.message : String(err) },
          "prevention rules could not plan",
        );
      }
    },
  });
  return persisted ? { outbox, applying } : null;
}

/**
 * A read that failed: thrown again for the queue to retry, unless the credentials were refused or
 * this was the last attempt; then the scan fails and the connector says why.
 */
async function failOrRetry(
  deps: TScanDeps,
  { scan, connector }: Pick<TStartedScan, "scan" | "connector">,
  err: unknown,
  attempt: number,
): Promise<TScanResult> {
  if (!refusedBySource(err) && attempt < SCAN_ATTEMPTS) throw err;
  const message = errorReason(err);
  await deps.db
    .update(connectors)
    .set({ healthStatus: "unhealthy", healthDetail: message.slice(0, 500) })
    .where(eq(connectors.id, connector.id));
  await failScan(deps.db, scan.id, message.slice(0, 500));
  deps.log.warn({ scanId: scan.id, connectorId: connector.id, ...queryErrorFields(err) }, "scan failed");
  const [failed] = await deps.db.select().from(scans).where(eq(scans.id, scan.id));
  return failed ? toScanResult(failed) : { ...toScanResult(scan), status: "FAILED" };
}
