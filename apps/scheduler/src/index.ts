export { startScheduler, type TScheduler, type TSchedulerOptions } from "./scheduler";
export { buildJobRegistry, type TJobDeps } from "./registry";
