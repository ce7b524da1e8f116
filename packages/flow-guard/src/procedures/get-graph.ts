import { procedure } from "@posture/platform";
import { getFlowGraph } from "../services/graph";
import { getGraphMeta, ZGetGraphInput, ZGetGraphOutput } from "./get-graph.types";

export const getGraph = procedure({ auth: "session", feature: "flowGuard", role: "ADMIN" })
  .meta(getGraphMeta)
  .input(ZGetGraphInput)
  .output(ZGetGraphOutput)
  .query(({ ctx, input }) => getFlowGraph(ctx.db, { orgId: ctx.principal.org.id, ...input }));
