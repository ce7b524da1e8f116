import { procedure } from "@posture/platform";
import { getBaseline as get } from "../services/behaviour-views";
import { getBaselineMeta, ZGetBaselineInput, ZGetBaselineOutput } from "./get-baseline.types";

export const getBaseline = procedure({ auth: "apiKey", feature: "ueba" })
  .meta(getBaselineMeta)
  .input(ZGetBaselineInput)
  .output(ZGetBaselineOutput)
  .query(({ ctx, input }) => get(ctx.db, { orgId: ctx.principal.org.id, userId: input.userId }));
