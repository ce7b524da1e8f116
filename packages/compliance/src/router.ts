import { router } from "@posture/platform";
import { createReport } from "./procedures/create-report";
import { generateEvidence } from "./procedures/generate-evidence";
import { getDashboard } from "./procedures/get-dashboard";
import { getEvidence } from "./procedures/get-evidence";
import { getEvidenceKeys } from "./procedures/list-evidence-keys";
import { getGapReport } from "./procedures/get-gap-report";
import { getPostureReport } from "./procedures/get-compliance-report";
import { getReport } from "./procedures/get-report";
import type { TPostureReportDeps } from "./services/posture-report-data";

/**
 * The compliance routes. `breakdown` is the posture package's `computeOrgPosture` (what the
 * posture report prints), handed in by the gateway and the demo seed: compliance does not import
 * the posture package.
 */
export const buildComplianceRouter = (deps: TPostureReportDeps) =>
  router({
    compliance: router({
      reports: router({ create: createReport, get: getReport }),
      dashboard: router({ get: getDashboard }),
      gapReport: router({ get: getGapReport }),
      // `keys` before `get`: GET /compliance/evidence/keys is not the evidence job "keys".
      evidence: router({
        keys: router({ list: getEvidenceKeys }),
        generate: generateEvidence,
        get: getEvidence,
      }),
    }),
    reports: router({ compliance: router({ get: getPostureReport(deps) }) }),
  });
