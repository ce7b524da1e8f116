export {
  classifyAgent,
  type TAgentClassification,
  type TAgentQuadrant,
  type TRiskBand,
} from "./classify-agent";
export { DEFAULT_BROAD_GROUP_THRESHOLD, type TRuleEngineOptions } from "./context";
export { fingerprintOf } from "./finding";
export { createRuleEngine, type TRuleEngine } from "./rule-engine";
export { QUICK_WIN_RULES, RULE_CATEGORY, RULE_IDS, type TRuleId } from "./rule-ids";
export { broadScopesOf, isBroadScope } from "./scopes";
export {
  CATEGORY_CAPS,
  categoryDeduction,
  GRADE_THRESHOLDS,
  gradeOf,
  POSTURE_TOP_LIMIT,
  rankFindings,
  scoreCounts,
  scorePosture,
  SEVERITY_WEIGHTS,
  type TCategoryCounts,
  type TGrade,
  type TPostureBreakdown,
  type TScoredFinding,
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
