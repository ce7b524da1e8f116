import type { Db } from "@posture/db";
import type { TJobRegistry, TScheduledJobQueue } from "@posture/jobs";
import type { TLogger, TRuntime } from "@posture/platform";
import { buildJobRegistry as buildDomainRegistry } from "@posture/posture";

/** What job handlers may use; `jobs` is the queue itself, for follow-up jobs and schedules. */
export type TJobDeps = {
  db: Db;
  jobs: TScheduledJobQueue;
  runtime: TRuntime;
  log: TLogger;
};

/** Every job of the service (scans, sweeps, webhook deliveries), as the domain packages define them. */
export function buildJobRegistry(deps: TJobDeps): TJobRegistry {
  return buildDomainRegistry(deps);
}
