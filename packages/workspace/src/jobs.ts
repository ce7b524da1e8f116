import type { Db } from "@posture/db";
import type { TJobModule } from "@posture/jobs";
import { lapseExpiredApprovals } from "./services/approvals";

/** Ends approvals whose time is up: their shares rank again and their findings reopen. */
export const APPROVALS_LAPSE_JOB = "sharing.approvals-lapse";

export const workspaceJobs: TJobModule<{ db: Db }> = {
  definitions: (deps) => ({
    [APPROVALS_LAPSE_JOB]: { attempts: 1, backoffMs: 0, handler: () => lapseExpiredApprovals(deps.db) },
  }),
  periodic: [{ name: APPROVALS_LAPSE_JOB, schedulerId: "periodic-approvals-lapse", everyMs: 5 * 60_000 }],
};
