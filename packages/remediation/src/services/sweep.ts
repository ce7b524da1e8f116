import { inArray } from "drizzle-orm";
import { remediations } from "@posture/db";
import {
  applyJobId,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_UNDO_JOB,
  undoJobId,
  type TRemediationDeps,
} from "./apply";

/**
 * Queues again every remediation left APPLYING or REVERTING: its job is lost when the queue lost
 * it (the embedded queue after a restart, Redis emptied). The job id is the same, so a job still
 * queued, retrying or running is not added twice; one that runs again finds the decided steps
 * decided and re-reads the step its dead worker left started.
 */
export async function sweepRemediations(deps: Pick<TRemediationDeps, "db" | "jobs">): Promise<number> {
  const active = await deps.db
    .select({ id: remediations.id, status: remediations.status })
    .from(remediations)
    .where(inArray(remediations.status, ["APPLYING", "REVERTING"]));
  for (const r of active) {
    if (r.status === "APPLYING")
      await deps.jobs.enqueue(REMEDIATION_APPLY_JOB, { remediationId: r.id }, { jobId: applyJobId(r.id) });
    else await deps.jobs.enqueue(REMEDIATION_UNDO_JOB, { remediationId: r.id }, { jobId: undoJobId(r.id) });
  }
  return active.length;
}
