import { router } from "@posture/platform";
import type { TClientReads } from "./client-reads";
import type { TPartnerDeps } from "./deps";
import { listDrift } from "./procedures/list-drift";
import { getClientReport } from "./procedures/get-client-report";
import { getAiPortfolio } from "./procedures/get-ai-exposure";
import { getPortfolio } from "./procedures/get-portfolio";
import { getPortfolioPdf } from "./procedures/get-portfolio-pdf";
import { getReport } from "./procedures/get-report";
import { listReports } from "./procedures/list-reports";
import { getPartnerAccess, grantPartnerAccess, withdrawPartnerAccess } from "./procedures/partner-access";
import { updateSettings } from "./procedures/update-settings";
import { actionsRouter } from "./routers/actions";
import { campaignsRouter } from "./routers/campaigns";
import { clientsRouter } from "./routers/clients";
import { groupsRouter } from "./routers/groups";
import { standardsRouter } from "./routers/standards";

// The literal report paths are declared before `get` so that /partner/reports/portfolio is no id.
export const buildPartnerRouter = <R extends TClientReads>(deps: TPartnerDeps<R>) =>
  router({
    partner: router({
      settings: router({ update: updateSettings }),
      reports: router({
        portfolio: router({ get: getPortfolio, pdf: router({ get: getPortfolioPdf }) }),
        client: router({ get: getClientReport }),
        list: listReports,
        get: getReport,
      }),
      clients: clientsRouter(deps),
      groups: groupsRouter(deps),
      standards: standardsRouter(deps),
      drift: router({ list: listDrift }),
      campaigns: campaignsRouter(deps),
      actions: actionsRouter(deps),
      exposure: router({ ai: router({ get: getAiPortfolio(deps.aiReadiness) }) }),
    }),
    partnerAccess: router({ get: getPartnerAccess, set: grantPartnerAccess, delete: withdrawPartnerAccess }),
  });
