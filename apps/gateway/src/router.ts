import { accountRouter } from "@posture/account";
import { complianceRouter } from "@posture/compliance";
import { partnerRouter } from "@posture/partner";
import { agentGuardRouter } from "@posture/agent-guard";
import { flowGuardRouter } from "@posture/flow-guard";
import { router } from "@posture/platform";
import { postureRouter } from "@posture/posture";
import { awarenessRouter } from "@posture/awareness";
import { incidentsRouter } from "@posture/incidents";
import { behaviourRouter } from "@posture/ueba";
import { webhooksRouter } from "@posture/webhooks";
import { workspaceRouter } from "@posture/workspace";

// The whole API: REST paths come from each procedure's OpenAPI meta, tRPC paths from these keys.
export const appRouter = router({
  account: accountRouter,
  posture: postureRouter,
  webhooks: webhooksRouter,
  compliance: complianceRouter,
  partner: partnerRouter,
  workspace: workspaceRouter,
  flowGuard: flowGuardRouter,
  agentGuard: agentGuardRouter,
  behavior: behaviourRouter,
  incidents: incidentsRouter,
  awareness: awarenessRouter,
});

export type AppRouter = typeof appRouter;
