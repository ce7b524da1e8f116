export { buildPostureRouter } from "./router";
export {
  createRuleEngine,
  DEFAULT_BROAD_GROUP_THRESHOLD,
  tenantCheckFindings,
  type TDetectedFinding,
  type TRuleEngine,
} from "./engine";

// What the scan pipeline (@posture/scans) hands its detections to: posture owns findings, the
// score and the scan's result; the scan job that reads the source is not posture's.
export {
  failScan,
  SCAN_JOB,
  SYNC_WAIT_MS,
  toScanResult,
  type TFullScanReason,
  type TScanResult,
} from "./services/scan-result";
export {
  dropDetections,
  stageDetections,
  type TDetectionStage,
  type TStageWrite,
} from "./services/scan-detections";
export { persistScan, type TPersistInput, type TPersistResult } from "./services/scan-persist";
export { recordScanEvents } from "./services/scan-events";
export { ensureDefaultRules, matches as ruleMatches } from "./services/policies";
export { scheduledScanAllowed } from "./services/scan-allowance";
export { getFindingView, listFindings } from "./services/findings";
// Sandboxes (@posture/sandbox) connect their demo sources on first use.
export { createConnector, type TConnectorView } from "./services/connectors";
export { computeOrgPosture, openFindingCounts } from "./services/posture";
// The scoring engine, for what-if predictions (remediation plans, POST /posture/simulate).
export {
  countFindings,
  gradeOf,
  quickWinGroupOf,
  scoreCounts,
  scoreWithout,
  type TCategoryCounts,
  type TQuickWin,
  type TScoredFinding,
} from "./engine/score-posture";
export { QUICK_WIN_GROUPS, RULE_CATEGORY, RULE_IDS } from "./engine/rule-ids";
export { fingerprintOf } from "./engine/finding";
export { TENANT_CONFIGURATION } from "./engine/tenant-findings";
// A partner's reads of a managed client (@posture/composition, its partner wiring): the same schemas and services.
export { listTimeline } from "./services/timeline";
export { ZListFindingsInput, ZListFindingsOutput } from "./procedures/findings.types";
export { ZListTimelineInput, ZListTimelineOutput } from "./procedures/posture.types";
export {
  receiveTicketEvent,
  signatureValid,
  trackerChange,
  LINEAR_MAX_AGE_MS,
} from "./services/ticket-events";
export {
  closeComment,
  closeResolvedTickets,
  TICKET_CLOSE_SWEEP_JOB,
  CLOSED_BY_PRODUCT,
} from "./services/ticket-close";
export { postureJobs } from "./jobs";
