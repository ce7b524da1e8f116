import { router } from "@posture/platform";
import { configureTicketing } from "./procedures/set-ticketing";
import { createConnector } from "./procedures/create-connector";
import { createQuickWinTicket } from "./procedures/create-quick-win-ticket";
import { createTicket } from "./procedures/create-ticket";
import { deleteConnector } from "./procedures/delete-connector";
import { exportFindings } from "./procedures/export-findings";
import { getFinding } from "./procedures/get-finding";
import { getPostureBreakdown } from "./procedures/get-posture-breakdown";
import { getPostureHistory } from "./procedures/list-posture-history";
import { getScan } from "./procedures/get-scan";
import { listConnectors } from "./procedures/list-connectors";
import { listFindings } from "./procedures/list-findings";
import { listTimeline } from "./procedures/list-timeline";
import { policiesRouter, preventionRulesRouter } from "./procedures/rules";
import { syncConnector } from "./procedures/sync-connector";
import { updateConnector } from "./procedures/update-connector";

type TRouterRecord = Parameters<typeof router>[0];

/**
 * The posture area's routes. `simulate` (POST /api/posture/simulate) is given by the remediation
 * package, which may read compliance too (a domain package may not): the gateway builds the router.
 */
export const buildPostureRouter = <TSimulate extends TRouterRecord[string]>(extra: { simulate: TSimulate }) =>
  router({
    connectors: router({
      list: listConnectors,
      create: createConnector,
      update: updateConnector,
      delete: deleteConnector,
      sync: syncConnector,
      scans: router({ get: getScan }),
    }),
    findings: router({
      list: listFindings,
      get: getFinding,
      export: exportFindings,
      ticket: router({ create: createTicket }),
    }),
    integrations: router({ ticketing: router({ set: configureTicketing }) }),
    posture: router({
      history: router({ list: getPostureHistory }),
      breakdown: router({ get: getPostureBreakdown }),
      simulate: extra.simulate,
      quickWins: router({ ticket: router({ create: createQuickWinTicket }) }),
    }),
    timeline: router({ list: listTimeline }),
    policies: policiesRouter,
    preventionRules: preventionRulesRouter,
  });
