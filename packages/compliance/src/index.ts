export { buildComplianceRouter } from "./router";
export type { TPostureBreakdownOf, TPostureReportDeps } from "./services/posture-report-data";
export * from "./catalogs";
export {
  controlStatus,
  evaluateFramework,
  crossGaps,
  satisfiedPct,
  type TControlResult,
  type TFrameworkResult,
} from "./engine/evaluate";
export { evaluateOrg, type TOrgEvaluation } from "./services/evaluation";
export { gatherSignals, gradeOf } from "./services/signals";
export { complianceJobModule, type TComplianceJobDeps } from "./jobs/module";
export { EVIDENCE_BUILD_JOB, EVIDENCE_PURGE_JOB, EVIDENCE_TTL_MS } from "./services/evidence-jobs";
export { buildEvidencePackage } from "./services/evidence-builder";
export { buildPostureReport } from "./services/posture-report-pdf";
export { buildGapReport } from "./services/gap-report-pdf";
export {
  applyWhatIf,
  controlChanges,
  WHAT_IF_CHECKS,
  type TWhatIf,
  type TControlChange,
} from "./engine/what-if";
export type { TSignals } from "./engine/signals";
// A partner's reads of a managed client (@posture/composition, its partner wiring): the same schemas and service.
export { getDashboard } from "./services/reports";
export { ZGetDashboardInput, ZGetDashboardOutput } from "./procedures/get-dashboard.types";
