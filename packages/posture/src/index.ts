export { postureRouter } from "./router";
export { buildJobRegistry, postureJobDefinitions } from "./jobs/registry";
export { SCAN_JOB, SCAN_SWEEP_JOB, runScanJob, sweepDueScans, type TScanDeps } from "./services/scan-runner";
export { startPeriodicJobs } from "./jobs/periodic";
