import { procedure } from "@posture/platform";
import { getAnomaly as get } from "../services/behaviour-views";
import { getAnomalyMeta, ZGetAnomalyInput } from "./get-anomaly.types";
import { ZAnomaly } from "./list-anomalies.types";

export const getAnomaly = procedure({ auth: "apiKey", feature: "ueba" })
  .meta(getAnomalyMeta)
  .input(ZGetAnomalyInput)
  .output(ZAnomaly)
  .query(({ ctx, input }) => get(ctx.db, { orgId: ctx.principal.org.id, id: input.id }));
