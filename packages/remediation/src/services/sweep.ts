import { and, inArray } from "drizzle-orm";
import { remediations } from "@posture/db";
import {
  applyJobId,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_UNDO_JOB,
  undoJobId,
  type TRemediationDeps,
} from "./apply";
import { leaseFree } from "./lease";

/**
 * Queues again every remediation left APPLYING or REVERTING whose lease is free: its job is lost
 * when the queue lost it (the embedded queue after a restart, Redis emptied) or its worker died
 * (the lease ran out). One whose worker is alive holds a live lease and is left to it: after Redis
 * restarted empty the job id no longer dedupes, and the lease is what keeps a second worker out
 * (a job queued anyway finds the lease taken and does nothing). One that runs again finds the
 * decided steps decided and re-reads the step its dead worker left started.
 */
export async function sweepRemediations(deps: Pick<TRemediationDeps, "db" | "jobs">): Promise<number> {
  const active = await deps.db
    .select({ id: remediations.id, status: remediations.status })
    .from(remediations)
    .where(and(inArray(remediations.status, ["APPLYING", "REVERTING"]), leaseFree()));
  for (const r of active) {
    if (r.status === "APPLYING")
      await deps.jobs.enqueue(REMEDIATION_APPLY_JOB, { remediationId: r.id }, { jobId: applyJobId(r.id) });
    else await deps.jobs.enqueue(REMEDIATION_UNDO_JOB, { remediationId: r.id }, { jobId: undoJobId(r.id) });
  }
  return active.length;
}
