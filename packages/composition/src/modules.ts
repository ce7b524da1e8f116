import type { Db } from "@posture/db";
import type { TJobModule } from "@posture/jobs";
import type { TDataWrites, TJobQueue, TLogger, TRuntime } from "@posture/platform";
import { complianceJobModule } from "@posture/compliance";
import { incidentJobs } from "@posture/incidents";
import { partnerJobModule } from "@posture/partner";
import { postureJobs } from "@posture/posture";
import { remediationJobs } from "@posture/remediation";
import { sandboxJobs } from "@posture/sandbox";
import { scansJobs } from "@posture/scans";
import { behaviourJobs } from "@posture/ueba";
import { webhookJobs } from "@posture/webhooks";
import { workspaceJobs } from "@posture/workspace";
import { housekeepingJobs } from "./housekeeping";

/** What every job module may use: the apps build this once, from their own configuration. */
export type TJobDeps = {
  db: Db;
  /** The queue itself, for follow-up jobs. */
  jobs: TJobQueue;
  runtime: TRuntime;
  log: TLogger;
  /** Marks each job's organizations as written (data-epochs.ts), so no read cache serves stale data. */
  dataWrites?: TDataWrites;
};

/**
 * Every package's background work. A new package with jobs exports a `TJobModule` and adds one
 * line here; the scheduler and the gateway (embedded mode) both run exactly this list.
 */
export const JOB_MODULES: readonly TJobModule<TJobDeps>[] = [
  scansJobs,
  webhookJobs,
  housekeepingJobs,
  complianceJobModule,
  partnerJobModule,
  workspaceJobs,
  behaviourJobs,
  remediationJobs,
  sandboxJobs,
  incidentJobs,
  postureJobs,
];
