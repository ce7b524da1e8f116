import { and, desc, eq } from "drizzle-orm";
import { SourceAuthError, type TCoverageGap, type TSourceAdapter } from "@posture/connectors";
import { connectors, scans } from "@posture/db";
import { AppError } from "@posture/platform";
import { ingestConnectorActivity, queueBehaviourRefresh } from "@posture/ueba";
import { defaultAdapterFor } from "./adapter";
import { ACTIVITY_ATTEMPTS, ACTIVITY_JOB, type TConnectorRow, type TScanDeps } from "./deps";
import { mergeCoverage } from "./tenant-settings";

/** What a completed scan hands the activity job: its connector, and itself for the coverage. */
export type TActivityJob = { connectorId: string; scanId: string };

export type TActivityResult = {
  /** Ingestions run: more than one when scans finished while this job read. */
  rounds: number;
  inserted: number;
  /** Why the last try gave up (the behaviour refresh was queued all the same). */
  failed?: string;
};

/** Scans that finish while the job reads are caught up in the same job, this many times at most. */
const MAX_ROUNDS = 3;

/** One ingestion queued or running per connector: a second scan's request joins it. */
export const activityJobId = (connectorId: string) => `scan-activity-${connectorId}`;

/** Credentials or config the source refuses: another try would be refused too. */
export const refusedBySource = (err: unknown) =>
  err instanceof SourceAuthError || (err instanceof AppError && err.code === "invalid_input");

export function activityJobOf(data: unknown): TActivityJob {
  const d = (data ?? {}) as { connectorId?: unknown; scanId?: unknown };
  if (typeof d.connectorId !== "string" || typeof d.scanId !== "string")
    throw new Error(`${ACTIVITY_JOB} without connectorId and scanId`);
  return { connectorId: d.connectorId, scanId: d.scanId };
}

/**
 * The scan's hand-off to behaviour analytics, after its findings committed. Queueing never fails
 * the scan: without the job (Redis away), the next scan's ingestion reads this window too.
 */
export async function queueActivity(deps: TScanDeps, job: TActivityJob): Promise<void> {
  try {
    await deps.jobs.enqueue(ACTIVITY_JOB, job, { jobId: activityJobId(job.connectorId) });
  } catch (err) {
    deps.log.warn({ err, scanId: job.scanId }, "queueing the activity ingestion failed");
  }
}

/**
 * The activity job: the source's activity since the connector's last ingestion, stored (COPY on
 * a first ingestion, deduplicated by source event id after), the coverage gaps the read met added
 * to the latest completed scan, then the behaviour refresh queued from the earliest new event.
 *
 * A failed read is thrown for the queue to retry with back-off; a refused credential, or the last
 * try, gives up: logged, and the refresh queued over the whole horizon (part of the window may
 * have landed), as the scan did when it ingested beside its read. Idempotent: events are keyed by
 * (connector, source id), so a re-run or an overlapping window stores each event once.
 */
export async function runActivityJob(
  deps: TScanDeps,
  job: TActivityJob,
  attempt: number,
): Promise<TActivityResult> {
  let inserted = 0;
  for (let round = 1; ; round++) {
    const [connector] = await deps.db.select().from(connectors).where(eq(connectors.id, job.connectorId));
    // Disconnected: its events went with it.
    if (!connector) return { rounds: round - 1, inserted };
    // The job reads up to now, so it covers every scan finished so far; the latest takes the gaps.
    const scanId = (await latestCompletedScan(deps, connector)) ?? job.scanId;
    const once = await ingestOnce(deps, connector, scanId, attempt);
    inserted += once.inserted;
    if (once.failed !== undefined) return { rounds: round, inserted, failed: once.failed };
    // A scan that finished meanwhile queued into this job (same id) and was dropped: read its window now.
    if (round >= MAX_ROUNDS || ((await latestCompletedScan(deps, connector)) ?? job.scanId) === scanId)
      return { rounds: round, inserted };
  }
}

async function ingestOnce(
  deps: TScanDeps,
  connector: TConnectorRow,
  scanId: string,
  attempt: number,
): Promise<{ inserted: number; failed?: string }> {
  const begun = performance.now();
  let adapter: TSourceAdapter | null = null;
  let stored: { inserted: number; changedSince: Date } | null = null;
  let failure: unknown;
  try {
    const source = deps.adapterFor
      ? deps.adapterFor(connector, deps.runtime)
      : await defaultAdapterFor(connector, deps.runtime, deps.db);
    adapter = source;
    stored = await ingestConnectorActivity(deps.db, {
      orgId: connector.orgId,
      connectorId: connector.id,
      activity: (since) => source.activity(since),
      now: new Date(),
    });
  } catch (err) {
    failure = err;
  }
  // A feature the read had to skip (a sign-in log the licence lacks) is said on the scan.
  if (adapter) await addCoverage(deps, scanId, adapter.coverageGaps());
  let failed: string | undefined;
  if (!stored) {
    if (!refusedBySource(failure) && attempt < ACTIVITY_ATTEMPTS) throw failure;
    failed = (failure instanceof Error ? failure.message : String(failure)).slice(0, 500);
    deps.log.warn(
      { scanId, connectorId: connector.id, attempt, err: failed },
      "activity ingestion failed; behaviour uses what is stored",
    );
  }
  await queueBehaviourRefresh(deps, {
    orgId: connector.orgId,
    scanId,
    changedSince: stored?.changedSince ?? null,
  });
  if (stored)
    deps.log.info(
      {
        scanId,
        connectorId: connector.id,
        inserted: stored.inserted,
        ms: Math.round(performance.now() - begun),
      },
      "activity ingested",
    );
  return { inserted: stored?.inserted ?? 0, ...(failed !== undefined ? { failed } : {}) };
}

async function latestCompletedScan(deps: TScanDeps, connector: TConnectorRow): Promise<string | null> {
  const [row] = await deps.db
    .select({ id: scans.id })
    .from(scans)
    .where(
      and(
        eq(scans.orgId, connector.orgId),
        eq(scans.connectorId, connector.id),
        eq(scans.status, "COMPLETE"),
      ),
    )
    .orderBy(desc(scans.completedAt))
    .limit(1);
  return row?.id ?? null;
}

/** The scan's coverage with the gaps added, each once; untouched when they are all there. */
async function addCoverage(deps: TScanDeps, scanId: string, gaps: readonly TCoverageGap[]): Promise<void> {
  if (gaps.length === 0) return;
  const [row] = await deps.db.select({ coverage: scans.coverage }).from(scans).where(eq(scans.id, scanId));
  if (!row) return;
  const before = row.coverage ?? [];
  const after = mergeCoverage(before, gaps);
  if (after.length > before.length)
    await deps.db.update(scans).set({ coverage: after }).where(eq(scans.id, scanId));
}
