import { notFound, procedure } from "@posture/platform";
import { listAgents } from "../services/agents";
import { getAgentReach as get } from "../services/reach";
import { getAgentReachMeta, ZGetAgentReachInput, ZGetAgentReachOutput } from "./agent-guard.types";

export const getAgentReach = procedure({ auth: "session", feature: "agentGuard", role: "ADMIN" })
  .meta(getAgentReachMeta)
  .input(ZGetAgentReachInput)
  .output(ZGetAgentReachOutput)
  .query(async ({ ctx, input }) => {
    const orgId = ctx.principal.org.id;
    const agent = (await listAgents(ctx.db, { orgId })).find((a) => a.id === input.agentId);
    if (!agent) throw notFound("Agent");
    return get(ctx.db, { orgId, ...input, scopes: agent.scopes });
  });
