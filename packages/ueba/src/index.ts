export { behaviourRouter } from "./router";
export { behaviourJobs, BEHAVIOUR_REFRESH_JOB, runBehaviourRefresh, type TBehaviourDeps } from "./jobs";
export { ingestConnectorActivity, queueBehaviourRefresh } from "./services/scan-activity";
export {
  storeActivity,
  ingestSince,
  refreshWeeklyAggregates,
  type TActivityInput,
} from "./services/activity-store";
export {
  refreshBehaviour,
  HORIZON_WEEKS,
  type TRefreshDeps,
  type TRefreshResult,
  type TNewAnomaly,
} from "./services/refresh";
export { isoWeekLabel, weekKey, recentWeeks } from "./services/weeks";
