import type { Db } from "@posture/db";
import type { TJobModule } from "@posture/jobs";
import { purgeExpiredIdempotencyKeys } from "@posture/platform";

/** Expired Idempotency-Key records. */
export const PURGE_JOB = "maintenance.purge";

/**
 * The platform's own housekeeping. It lives here rather than in @posture/platform because the
 * platform sits below @posture/jobs (which depends on it) and cannot name TJobModule.
 */
export const housekeepingJobs: TJobModule<{ db: Db }> = {
  definitions: (deps) => ({
    [PURGE_JOB]: { attempts: 1, backoffMs: 0, handler: () => purgeExpiredIdempotencyKeys(deps.db) },
  }),
  periodic: [{ name: PURGE_JOB, schedulerId: "periodic-purge", everyMs: 5 * 60_000 }],
};
