import { procedure } from "@posture/platform";
import { listAnomalies as list } from "../services/behaviour-views";
import { listAnomaliesMeta, ZListAnomaliesInput, ZListAnomaliesOutput } from "./list-anomalies.types";

export const listAnomalies = procedure({ auth: "apiKey", feature: "ueba" })
  .meta(listAnomaliesMeta)
  .input(ZListAnomaliesInput)
  .output(ZListAnomaliesOutput)
  .query(async ({ ctx, input }) => ({
    anomalies: await list(ctx.db, {
      orgId: ctx.principal.org.id,
      limit: input.limit,
      ...(input.type ? { type: input.type } : {}),
      ...(input.severity ? { severity: input.severity } : {}),
      ...(input.since ? { since: new Date(input.since) } : {}),
    }),
  }));
