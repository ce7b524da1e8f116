import { eq } from "drizzle-orm";
import { evidenceJobs, type Db } from "@posture/db";
import type { TJobModule } from "@posture/jobs";
import type { TLogger } from "@posture/platform";
import {
  EVIDENCE_BUILD_JOB,
  EVIDENCE_PURGE_JOB,
  purgeExpiredPackages,
  runEvidenceBuild,
} from "../services/evidence-jobs";

export type TComplianceJobDeps = { db: Db; log: TLogger };

const BUILD_ATTEMPTS = 3;

function jobIdOf(data: unknown): string {
  const jobId = (data as { jobId?: unknown } | null)?.jobId;
  if (typeof jobId !== "string") throw new Error("evidence job without jobId");
  return jobId;
}

/** Evidence packages: the build (queued per request) and the hourly purge of expired packages. */
export const complianceJobModule: TJobModule<TComplianceJobDeps> = {
  definitions: (deps) => ({
    [EVIDENCE_BUILD_JOB]: {
      attempts: BUILD_ATTEMPTS,
      backoffMs: 5_000,
      queue: "reports",
      // Whose package it builds (its rows are that organization's writes, for the read caches).
      orgOf: async (data) => {
        const [row] = await deps.db
          .select({ orgId: evidenceJobs.orgId })
          .from(evidenceJobs)
          .where(eq(evidenceJobs.id, jobIdOf(data)));
        return row?.orgId ?? null;
      },
      handler: (data, { attempt }) =>
        runEvidenceBuild(deps.db, deps.log, jobIdOf(data), attempt, BUILD_ATTEMPTS),
    },
    [EVIDENCE_PURGE_JOB]: { attempts: 1, backoffMs: 0, handler: () => purgeExpiredPackages(deps.db) },
  }),
  periodic: [{ name: EVIDENCE_PURGE_JOB, schedulerId: "periodic-evidence-purge", everyMs: 3_600_000 }],
};
