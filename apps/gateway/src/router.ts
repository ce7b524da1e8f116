import { accountRouter } from "@posture/account";
import { agentGuardRouter } from "@posture/agent-guard";
import { awarenessRouter } from "@posture/awareness";
import { buildComplianceRouter } from "@posture/compliance";
import { buildExposureRouter } from "@posture/exposure";
import { flowGuardRouter } from "@posture/flow-guard";
import { incidentsRouter } from "@posture/incidents";
import { buildPartnerRouter } from "@posture/partner";
import { partnerDeps } from "@posture/partner-clients";
import { AppError, mergeRouters, routeCatalog, type TContext } from "@posture/platform";
import { buildPostureRouter, computeOrgPosture } from "@posture/posture";
import { predictPostureScore, remediationRouter, simulatePosture } from "@posture/remediation";
import { sandboxRouter } from "@posture/sandbox";
import { behaviourRouter } from "@posture/ueba";
import { webhooksRouter } from "@posture/webhooks";
import { workspaceRouter } from "@posture/workspace";

// The whole API. Every package's router is keyed by its REST paths' first segments, so the tRPC key
// of a procedure mirrors its path (`GET /api/findings` is `findings.list`; docs/architecture.md,
// "Procedure keys"); the merge throws at start-up if two packages claim one segment.
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

/** The procedure at a tRPC key (`findings.list`), called as the request's context: its guards apply. */
export function callerAt(ctx: TContext, key: string): (input: unknown) => Promise<unknown> {
  // The caller is a proxy that answers any path with a function: the catalog says what exists.
  if (!routeCatalog(appRouter).byKey.has(key)) throw new AppError("not_found", `No procedure ${key}`);
  let node: unknown = appRouter.createCaller(ctx);
  for (const part of key.split(".")) node = (node as Record<string, unknown>)[part];
  return node as (input: unknown) => Promise<unknown>;
}
