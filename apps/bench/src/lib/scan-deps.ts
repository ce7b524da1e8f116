import { randomBytes } from "node:crypto";
import type { Db } from "@posture/db";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, parseEncryptionKey } from "@posture/platform";
import type { TScanDeps } from "@posture/scans";
import { BEHAVIOUR_REFRESH_JOB } from "@posture/ueba";

/**
 * What a bench child needs to run the real scan job in its own process. The behaviour refresh the
 * scan queues is counted, not run: it is a job of its own (the `behaviour` scenario times it), and
 * running it here would put its time and memory in the scan's figures.
 */
export function benchScanDeps(db: Db): TScanDeps & { refreshesQueued: () => number } {
  let refreshes = 0;
  const jobs = createInProcessQueue({
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
  };
}
