import type { Db } from "@posture/db";
import type { TJobModule } from "@posture/jobs";
import type { TJobQueue, TLogger, TRuntime } from "@posture/platform";

export type TRemediationJobDeps = { db: Db; jobs: TJobQueue; runtime: TRuntime; log: TLogger };

/** The apply and undo jobs (services/apply.ts). Stub of the interface commit. */
export const remediationJobs: TJobModule<TRemediationJobDeps> = {
  definitions: () => ({}),
};
