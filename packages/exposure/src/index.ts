export { buildExposureRouter } from "./router";
export {
  AI_QUICK_WINS,
  ASSISTANTS,
  getAiExposure,
  getAiReadiness,
  listAiFiles,
  type TPredictPosture,
} from "./services/ai-exposure";
export { READINESS_POINTS, readinessGrade, readinessScore } from "./services/readiness";
export { ZGetAiExposureOutput, ZListAiFilesInput, ZListAiFilesOutput } from "./procedures/exposure.types";
export {
  BROAD_GROUP_THRESHOLD_MAX,
  BROAD_GROUP_THRESHOLD_MIN,
  getExposureSettings,
  updateExposureSettings,
  type TExposureSettings,
} from "./services/settings";
