export { startScheduler, type TScheduler, type TSchedulerOptions } from "./scheduler";
