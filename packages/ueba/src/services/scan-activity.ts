import type { Db } from "@posture/db";
import type { TJobQueue, TLogger } from "@posture/platform";
import { BEHAVIOUR_REFRESH_JOB } from "../jobs";
import { ingestSince, storeActivity, type TActivityInput } from "./activity-store";

/**
 * Behaviour analytics' intake, run by the scan pipeline's activity job after a scan: stores the
 * source's activity since the connector's last ingestion (re-reading a day's overlap, which the
 * store skips by event id). Returns how many events were new and where the recomputation must
 * start: the earliest new event, or `now` without any (only the current week moves on).
 *
 * Throws what the source or the database threw: the job retries, and a retry stores each event
 * once, however many batches of the failed try had landed.
 */
export async function ingestConnectorActivity(
  db: Db,
  input: {
    orgId: string;
    connectorId: string;
    activity: (since: Date) => AsyncIterable<TActivityInput>;
    now: Date;
  },
): Promise<{ inserted: number; changedSince: Date }> {
  const { since, first } = await ingestSince(db, {
    orgId: input.orgId,
    connectorId: input.connectorId,
    now: input.now,
  });
  const stored = await storeActivity(db, {
    orgId: input.orgId,
    connectorId: input.connectorId,
    events: input.activity(since),
    first,
  });
  return { inserted: stored.inserted, changedSince: stored.earliest ?? input.now };
}

/**
 * Queues the organization's recomputation once a scan's activity is stored. `changedSince` null:
 * the whole horizon (an ingestion that failed may have stored part of its window).
 */
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
