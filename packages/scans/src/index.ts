// The scan pipeline: reads a source into the rule engine, the resource store and behaviour
// analytics, then hands the detections to posture. See docs/architecture.md, "The path of a scan".
export { SCAN_JOB, type TScanResult } from "@posture/posture";
export { queueActivity, runActivityJob, type TActivityJob, type TActivityResult } from "./activity-job";
export { defaultAdapterFor } from "./adapter";
export {
  ACTIVITY_ATTEMPTS,
  ACTIVITY_JOB,
  SCAN_ATTEMPTS,
  SCAN_SWEEP_JOB,
  type TConnectorRow,
  type TScanDeps,
} from "./deps";
export { scansJobs } from "./module";
export { runScanJob } from "./scan-job";
export { resumeLeftScans, sweepDueScans } from "./sweep";
