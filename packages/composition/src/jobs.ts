import {
  combineJobModules,
  periodicTasksOf,
  startPeriodicTasks,
  type TJobRegistry,
  type TPeriodicOptions,
} from "@posture/jobs";
import type { TJobQueue } from "@posture/platform";
import { JOB_MODULES, type TJobDeps } from "./modules";

export { JOB_MODULES, type TJobDeps } from "./modules";
export { housekeepingJobs, PURGE_JOB } from "./housekeeping";

/** Every job of the service, as the packages define them. */
export function buildJobRegistry(deps: TJobDeps): TJobRegistry {
  return combineJobModules(JOB_MODULES, deps);
}

/**
 * Schedules every module's periodic tasks (Redis-held on the durable queue, re-added when Redis
 * loses them; timers in-process). Returns a stop function.
 */
export function startPeriodicJobs(jobs: TJobQueue, opts: TPeriodicOptions = {}): Promise<() => void> {
  return startPeriodicTasks(jobs, periodicTasksOf(JOB_MODULES), opts);
}
