import { randomBytes } from "node:crypto";
import type { Db } from "@posture/db";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, parseEncryptionKey } from "@posture/platform";
import { ACTIVITY_JOB, type TActivityJob, type TScanDeps } from "@posture/scans";
import { BEHAVIOUR_REFRESH_JOB } from "@posture/ueba";

/**
 * What a bench child needs to run the real scan job in its own process. The activity ingestion
 * and the behaviour refresh the scan queues are recorded, not run: the child times the activity
 * job itself, after the scan (`runActivityJob` with the job the scan queued), and the refresh is
 * a job of its own (the `behaviour` scenario times it); running them here would put their time
 * and memory in the scan's figures.
 */
export function benchScanDeps(db: Db): TScanDeps & {
  refreshesQueued: () => number;
  activityQueued: () => TActivityJob | null;
} {
  let refreshes = 0;
  let activity: TActivityJob | null = null;
  const jobs = createInProcessQueue({
    [ACTIVITY_JOB]: {
      handler: async (data) => {
        activity = data as TActivityJob;
      },
      attempts: 1,
      backoffMs: 0,
    },
    [BEHAVIOUR_REFRESH_JOB]: {
      handler: async () => {
        refreshes++;
      },
      attempts: 1,
      backoffMs: 0,
    },
  });
  return {
    db,
    jobs,
    runtime: {
      encryptionKey: parseEncryptionKey(randomBytes(32).toString("hex")),
      publicUrl: "http://localhost",
      webhookAllowPrivateTargets: false,
    },
    // BENCH_LOG_LEVEL=info prints where each scan's time went ("scan finished").
    log: createLogger(process.env.BENCH_LOG_LEVEL ?? "warn"),
    refreshesQueued: () => refreshes,
    activityQueued: () => activity,
  };
}
