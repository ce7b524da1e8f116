import type { Db } from "@posture/db";
import type { TJobQueue, TLogger } from "@posture/platform";
import { BEHAVIOUR_REFRESH_JOB } from "../jobs";
import { ingestSince, storeActivity, type TActivityInput } from "./activity-store";

/**
 * The scan pipeline's first call into behaviour analytics: stores the source's activity since the
 * last ingestion. Never fails the scan: activity is best effort (a source without the reports
 * scope simply has none). Returns where the recomputation must start: the earliest new event,
 * `now` (only the current week moves on) without any, null (the whole horizon) after a failure,
 * since some batches may have landed.
 */
export async function ingestScanActivity(
  deps: { db: Db; log: TLogger },
  input: {
    orgId: string;
    connectorId: string;
    scanId: string;
    activity: (since: Date) => AsyncIterable<TActivityInput>;
    now: Date;
  },
): Promise<Date | null> {
  try {
    const { since, first } = await ingestSince(deps.db, {
      orgId: input.orgId,
      connectorId: input.connectorId,
      now: input.now,
    });
    const stored = await storeActivity(deps.db, {
      orgId: input.orgId,
      connectorId: input.connectorId,
      events: input.activity(since),
      first,
    });
    deps.log.info({ scanId: input.scanId, inserted: stored.inserted }, "activity ingested");
    return stored.earliest ?? input.now;
  } catch (err) {
    deps.log.warn({ err, scanId: input.scanId }, "activity ingestion failed; behaviour uses what is stored");
    return null;
  }
}

/** The second call, once the scan has committed: queues the organization's recomputation. */
export async function queueBehaviourRefresh(
  deps: { jobs: TJobQueue; log: TLogger },
  input: { orgId: string; scanId: string; changedSince: Date | null },
): Promise<void> {
  try {
    await deps.jobs.enqueue(
      BEHAVIOUR_REFRESH_JOB,
      {
        orgId: input.orgId,
        ...(input.changedSince ? { changedSince: input.changedSince.toISOString() } : {}),
      },
      { jobId: `behavior-refresh-${input.scanId}` },
    );
  } catch (err) {
    deps.log.warn({ err, scanId: input.scanId }, "queueing the behaviour refresh failed");
  }
}
