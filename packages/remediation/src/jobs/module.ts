import { eq } from "drizzle-orm";
import { remediations } from "@posture/db";
import type { TJobModule } from "@posture/jobs";
import {
  REMEDIATION_APPLY_JOB,
  REMEDIATION_ATTEMPTS,
  REMEDIATION_SWEEP_JOB,
  REMEDIATION_UNDO_JOB,
  runApplyJob,
  type TRemediationDeps,
} from "../services/apply";
import { sweepRemediations } from "../services/sweep";
import { runUndoJob } from "../services/undo";

export type TRemediationJobDeps = TRemediationDeps & {
  /** Base of the back-off between tries (tests shorten it). */
  backoffMs?: number;
};

const SWEEP_EVERY_MS = 60_000;

const remediationIdOf = (data: unknown): string => {
  const id = (data as { remediationId?: unknown } | null)?.remediationId;
  if (typeof id !== "string") throw new Error("remediation job without remediationId");
  return id;
};

/**
 * The apply and undo jobs (services/apply.ts, services/undo.ts) and the sweep that re-queues a
 * remediation whose job was lost. Apply and undo work against the source as scans do, so they run
 * on the scans queue and count against the organization's share of it.
 */
export const remediationJobs: TJobModule<TRemediationJobDeps> = {
  definitions: (deps) => {
    const orgOf = async (data: unknown) => {
      const [row] = await deps.db
        .select({ orgId: remediations.orgId })
        .from(remediations)
        .where(eq(remediations.id, remediationIdOf(data)));
      return row?.orgId ?? null;
    };
    const backoffMs = deps.backoffMs ?? 5_000;
    return {
      [REMEDIATION_APPLY_JOB]: {
        attempts: REMEDIATION_ATTEMPTS,
        backoffMs,
        queue: "scans",
        orgOf,
        handler: (data, { attempt }) =>
          runApplyJob(deps, remediationIdOf(data), { attempt, attempts: REMEDIATION_ATTEMPTS }),
      },
      [REMEDIATION_UNDO_JOB]: {
        attempts: REMEDIATION_ATTEMPTS,
        backoffMs,
        queue: "scans",
        orgOf,
        handler: (data, { attempt }) =>
          runUndoJob(deps, remediationIdOf(data), { attempt, attempts: REMEDIATION_ATTEMPTS }),
      },
      // It only queues the applies and undos a lost job left: they mark their own writes.
      [REMEDIATION_SWEEP_JOB]: {
        attempts: 1,
        backoffMs: 0,
        dataWrites: "none",
        handler: () => sweepRemediations(deps),
      },
    };
  },
  periodic: [
    { name: REMEDIATION_SWEEP_JOB, schedulerId: "periodic-remediation-sweep", everyMs: SWEEP_EVERY_MS },
  ],
};
