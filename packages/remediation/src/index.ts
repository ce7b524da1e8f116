// Remediation at the source (issue 19): plan → approve → apply → undo, across the connectors'
// writers, findings, the posture engine and compliance. An orchestrating package: it may import
// domain packages; none imports it. See docs/architecture.md, "The path of a remediation".
export { remediationRouter, simulatePosture } from "./router";
// The what-if behind POST /posture/simulate's score, as a service (the AI exposure quick wins').
export { predictPostureScore } from "./services/simulate";
export { remediationJobs, type TRemediationJobDeps } from "./jobs/module";
export {
  applyJobId,
  REMEDIATION_APPLY_JOB,
  REMEDIATION_SWEEP_JOB,
  REMEDIATION_UNDO_JOB,
  requestApply,
  runApplyJob,
  undoJobId,
  type TRemediationDeps,
} from "./services/apply";
export { runUndoJob } from "./services/undo";
export { requestUndo } from "./services/undo-request";
export { sweepRemediations } from "./services/sweep";
export { writerFor, type TWriterFor } from "./services/writer";
export { createRateLimiter, type TRateLimiter } from "./services/rate";
export {
  planPrevention,
  startPreventionApplies,
  type TPreventionAction,
  type TPreventionResult,
} from "./services/prevention";
export { createPlan, insertPlan, type TPlanScope, type TStepDraft } from "./services/plan";
export { agentIdOf } from "./services/draft";
