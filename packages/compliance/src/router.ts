import { router } from "@posture/platform";
import { createReport } from "./procedures/create-report";
import { generateEvidence } from "./procedures/generate-evidence";
import { getDashboard } from "./procedures/get-dashboard";
import { getEvidence } from "./procedures/get-evidence";
import { getGapReport } from "./procedures/get-gap-report";
import { getPostureReport } from "./procedures/get-posture-report";
import { getReport } from "./procedures/get-report";

export const complianceRouter = router({
  compliance: router({
    reports: router({ create: createReport, get: getReport }),
    dashboard: router({ get: getDashboard }),
    gapReport: router({ get: getGapReport }),
    evidence: router({ generate: generateEvidence, get: getEvidence }),
  }),
  reports: router({ compliance: router({ get: getPostureReport }) }),
});
