import { procedure } from "@posture/platform";
import { heatmap } from "../services/behaviour-views";
import { getHeatmapMeta, ZGetHeatmapInput, ZGetHeatmapOutput } from "./get-heatmap.types";

export const getHeatmap = procedure({ auth: "apiKey", feature: "ueba" })
  .meta(getHeatmapMeta)
  .input(ZGetHeatmapInput)
  .output(ZGetHeatmapOutput)
  .query(({ ctx, input }) => heatmap(ctx.db, { orgId: ctx.principal.org.id, ...input }));
