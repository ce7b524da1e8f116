import { randomBytes } from "node:crypto";
import type { Db } from "@posture/db";
import { createInProcessQueue } from "@posture/jobs";
import { createLogger, parseEncryptionKey } from "@posture/platform";
import { BEHAVIOUR_REFRESH_JOB } from "@posture/ueba";
import { ACTIVITY_JOB, type TScanDeps } from "../deps";

/**
 * What `runScanJob` needs to run a scan alone: the activity ingestion and the behaviour refresh
 * it queues are jobs of their own, accepted here and not run.
 */
export function scanOnlyDeps(
  db: Db,
  opts: { logLevel?: string; adapterFor?: TScanDeps["adapterFor"] } = {},
): TScanDeps {
  return {
    db,
    jobs: createInProcessQueue({
      [ACTIVITY_JOB]: { handler: async () => {}, attempts: 1, backoffMs: 0 },
      [BEHAVIOUR_REFRESH_JOB]: { handler: async () => {}, attempts: 1, backoffMs: 0 },
    }),
    runtime: {
      encryptionKey: parseEncryptionKey(randomBytes(32).toString("hex")),
      publicUrl: "http://localhost",
      webhookAllowPrivateTargets: false,
    },
    log: createLogger(opts.logLevel ?? "warn"),
    ...(opts.adapterFor ? { adapterFor: opts.adapterFor } : {}),
  };
}
