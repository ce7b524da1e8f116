import { router } from "@posture/platform";
import { getClientReport } from "./procedures/get-client-report";
import { getPortfolio } from "./procedures/get-portfolio";
import { getReport } from "./procedures/get-report";
import { listReports } from "./procedures/list-reports";
import { updateSettings } from "./procedures/update-settings";

// The literal report paths are declared before `get` so that /partner/reports/portfolio is no id.
export const partnerRouter = router({
  partner: router({
    settings: router({ update: updateSettings }),
    reports: router({
      portfolio: router({ get: getPortfolio }),
      client: router({ get: getClientReport }),
      list: listReports,
      get: getReport,
    }),
  }),
});
