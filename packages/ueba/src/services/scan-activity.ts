import type { Db } from "@posture/db";
import type { TJobQueue, TLogger } from "@posture/platform";
import { BEHAVIOUR_REFRESH_JOB } from "../jobs";
import { ingestSince, storeActivity, type TActivityInput } from "./activity-store";

/**
 * The scan pipeline's one call into behaviour analytics: stores the source's activity since the
 * last ingestion, then queues the organization's recomputation. Never fails the scan: activity is
 * best effort (a source without the reports scope simply has none).
 */
export async function ingestScanActivity(
  deps: { db: Db; jobs: TJobQueue; log: TLogger },
  input: {
    orgId: string;
    connectorId: string;
    scanId: string;
    activity: (since: Date) => AsyncIterable<TActivityInput>;
    now: Date;
  },
): Promise<void> {
  // Without new events only the current week is re-summed; the model still re-runs (weeks move on).
  let changedSince: Date | null = input.now;
  try {
    const since = await ingestSince(deps.db, {
      orgId: input.orgId,
      connectorId: input.connectorId,
      now: input.now,
    });
    const stored = await storeActivity(deps.db, {
      orgId: input.orgId,
      connectorId: input.connectorId,
      events: input.activity(since),
    });
    if (stored.earliest) changedSince = stored.earliest;
    deps.log.info({ scanId: input.scanId, inserted: stored.inserted }, "activity ingested");
  } catch (err) {
    // Some batches may have landed: re-sum the whole horizon.
    changedSince = null;
    deps.log.warn({ err, scanId: input.scanId }, "activity ingestion failed; behaviour uses what is stored");
  }
  try {
    await deps.jobs.enqueue(
      BEHAVIOUR_REFRESH_JOB,
      { orgId: input.orgId, ...(changedSince ? { changedSince: changedSince.toISOString() } : {}) },
      { jobId: `behavior-refresh-${input.scanId}` },
    );
  } catch (err) {
    deps.log.warn({ err, scanId: input.scanId }, "queueing the behaviour refresh failed");
  }
}
