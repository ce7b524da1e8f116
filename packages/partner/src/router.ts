import { router } from "@posture/platform";
import { getClientReport } from "./procedures/get-client-report";
import { getPortfolio } from "./procedures/get-portfolio";
import { getReport } from "./procedures/get-report";
import { listReports } from "./procedures/list-reports";
import { updateSettings } from "./procedures/update-settings";

export const partnerRouter = router({
  updateSettings,
  getPortfolio,
  getClientReport,
  listReports,
  getReport,
});
