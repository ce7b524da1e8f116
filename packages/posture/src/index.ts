export { postureRouter } from "./router";
export { postureJobs } from "./jobs/module";
export { SCAN_JOB, SCAN_SWEEP_JOB, runScanJob, sweepDueScans, type TScanDeps } from "./services/scan-runner";
