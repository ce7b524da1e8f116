import { router } from "@posture/platform";
import { getSettings, updateSettings } from "./procedures/exposure-settings";
import { getAiExposureProcedure } from "./procedures/get-ai-exposure";
import { listAiFiles } from "./procedures/list-ai-files";
import type { TPredictPosture } from "./services/ai-exposure";

/**
 * GET /api/exposure/ai and /api/exposure/ai/files; GET/PATCH /api/exposure/settings. `predictPosture` (the posture score after a
 * quick win) is the remediation engine's what-if, handed in by the gateway.
 */
export const buildExposureRouter = (deps: { predictPosture?: TPredictPosture } = {}) =>
  router({
    exposure: router({
      ai: router({ get: getAiExposureProcedure(deps), files: router({ list: listAiFiles }) }),
      settings: router({ get: getSettings, update: updateSettings }),
    }),
  });
