export {
  classifyAgent,
  type TAgentClassification,
  type TAgentQuadrant,
  type TRiskBand,
} from "./classify-agent";
export type { TRuleEngineOptions } from "./context";
export { fingerprintOf } from "./finding";
export { createRuleEngine, type TRuleEngine } from "./rule-engine";
export { QUICK_WIN_RULES, RULE_CATEGORY, RULE_IDS, type TRuleId } from "./rule-ids";
export { broadScopesOf, isBroadScope } from "./scopes";
export {
  CATEGORY_CAPS,
  categoryDeduction,
  GRADE_THRESHOLDS,
  gradeOf,
  SCORE_CANDIDATES,
  scorePosture,
  scorePostureOf,
  SEVERITY_WEIGHTS,
  type TGrade,
  type TPostureBreakdown,
  type TScoredFinding,
  type TSeverityCount,
} from "./score-posture";
export { sensitiveTermIn } from "./sensitive-names";
export {
  FINDING_CATEGORIES,
  SEVERITIES,
  SEVERITY_RANK,
  maxSeverity,
  type TDetectedFinding,
  type TFindingCategory,
  type TResourceType,
  type TSeverity,
} from "./types";
export { TENANT_CONFIGURATION, tenantCheckFindings } from "./tenant-findings";
