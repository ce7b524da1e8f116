import { procedure } from "@posture/platform";
import { getAgentTimeline as get } from "../services/timeline";
import { getAgentTimelineMeta, ZGetAgentTimelineInput, ZGetAgentTimelineOutput } from "./agent-guard.types";

export const getAgentTimeline = procedure({ auth: "session", feature: "agentGuard", role: "ADMIN" })
  .meta(getAgentTimelineMeta)
  .input(ZGetAgentTimelineInput)
  .output(ZGetAgentTimelineOutput)
  .query(({ ctx, input }) => get(ctx.db, { orgId: ctx.principal.org.id, agentId: input.agentId }));
