import { accountRouter } from "@posture/account";
import { agentGuardRouter } from "@posture/agent-guard";
import { awarenessRouter } from "@posture/awareness";
import { buildComplianceRouter } from "@posture/compliance";
import { buildExposureRouter } from "@posture/exposure";
import { flowGuardRouter } from "@posture/flow-guard";
import { incidentsRouter } from "@posture/incidents";
import { buildPartnerRouter } from "@posture/partner";
import { mergeRouters } from "@posture/platform";
import { buildPostureRouter, computeOrgPosture } from "@posture/posture";
import { predictPostureScore, remediationRouter, simulatePosture } from "@posture/remediation";
import { sandboxRouter } from "@posture/sandbox";
import { behaviourRouter } from "@posture/ueba";
import { webhooksRouter } from "@posture/webhooks";
import { workspaceRouter } from "@posture/workspace";
import { partnerDeps } from "./partner";

// The whole API, composed once: the gateway serves it (REST, tRPC, MCP) and the demo seed calls
// it. Every package's router is keyed by its REST paths' first segments, so the tRPC key of a
// procedure mirrors its path (`GET /api/findings` is `findings.list`; docs/architecture.md,
// "Procedure keys"); the merge throws at start-up if two packages claim one segment. What a
// router needs from packages it may not import is handed in here.
export const appRouter = mergeRouters(
  accountRouter,
  buildPostureRouter({ simulate: simulatePosture }),
  remediationRouter,
  webhooksRouter,
  buildComplianceRouter({ breakdown: computeOrgPosture }),
  buildPartnerRouter(partnerDeps),
  workspaceRouter,
  flowGuardRouter,
  agentGuardRouter,
  behaviourRouter,
  incidentsRouter,
  awarenessRouter,
  sandboxRouter,
  buildExposureRouter({ predictPosture: predictPostureScore }),
);

export type AppRouter = typeof appRouter;
