import { router } from "@posture/platform";
import { createReport } from "./procedures/create-report";
import { generateEvidence } from "./procedures/generate-evidence";
import { getDashboard } from "./procedures/get-dashboard";
import { getEvidence } from "./procedures/get-evidence";
import { getGapReport } from "./procedures/get-gap-report";
import { getPostureReport } from "./procedures/get-posture-report";
import { getReport } from "./procedures/get-report";

export const complianceRouter = router({
  createReport,
  getReport,
  getDashboard,
  getGapReport,
  generateEvidence,
  getEvidence,
  getPostureReport,
});
