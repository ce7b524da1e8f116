import { combineJobModules, periodicTasksOf, startPeriodicTasks, type TJobRegistry } from "@posture/jobs";
import type { TJobQueue } from "@posture/platform";
import { JOB_MODULES, type TJobDeps } from "./modules";

export { JOB_MODULES, type TJobDeps } from "./modules";
export { housekeepingJobs, PURGE_JOB } from "./housekeeping";

/** Every job of the service, as the packages define them. */
export function buildJobRegistry(deps: TJobDeps): TJobRegistry {
  return combineJobModules(JOB_MODULES, deps);
}

/** Schedules every module's periodic tasks (Redis-held on the durable queue, timers in-process). */
export function startPeriodicJobs(jobs: TJobQueue): Promise<() => void> {
  return startPeriodicTasks(jobs, periodicTasksOf(JOB_MODULES));
}
