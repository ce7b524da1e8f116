import type { Db } from "@posture/db";
import type { TJobRegistry, TScheduledJobQueue } from "@posture/jobs";
import type { TLogger, TRuntime } from "@posture/platform";

/** What job handlers may use; `jobs` is the queue itself, for follow-up jobs and schedules. */
export type TJobDeps = {
  db: Db;
  jobs: TScheduledJobQueue;
  runtime: TRuntime;
  log: TLogger;
};

/**
 * Domain packages plug their jobs in here (posture scans, webhook deliveries…), each a
 * `Record<name, {handler, attempts, backoffMs}>` spread into the result. Empty until the
 * domain packages provide theirs; the workers then fail any job they are given as unknown.
 */
export function buildJobRegistry(deps: TJobDeps): TJobRegistry {
  void deps;
  return {};
}
