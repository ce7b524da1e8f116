import {
  combineJobModules,
  periodicTasksOf,
  startPeriodicTasks,
  type TJobRegistry,
  type TPeriodicOptions,
  withDataWrites,
} from "@posture/jobs";
import type { TJobQueue } from "@posture/platform";
import { JOB_MODULES, type TJobDeps } from "./modules";

export { JOB_MODULES, type TJobDeps } from "./modules";
export { housekeepingJobs, PURGE_JOB } from "./housekeeping";

/** Every job of the service, as the packages define them (each run as a write of its organizations). */
export function buildJobRegistry(deps: TJobDeps): TJobRegistry {
  const registry = combineJobModules(JOB_MODULES, deps);
  return deps.dataWrites ? withDataWrites(registry, deps.dataWrites) : registry;
}

/**
 * Schedules every module's periodic tasks (Redis-held on the durable queue, re-added when Redis
 * loses them; timers in-process). Returns a stop function.
 */
export function startPeriodicJobs(jobs: TJobQueue, opts: TPeriodicOptions = {}): Promise<() => void> {
  return startPeriodicTasks(jobs, periodicTasksOf(JOB_MODULES), opts);
}
