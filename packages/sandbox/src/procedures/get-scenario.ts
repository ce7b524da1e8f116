import { procedure } from "@posture/platform";
import { getRun } from "../services/scenarios";
import { getScenarioMeta, ZGetScenarioInput, ZScenarioRunView } from "./get-scenario.types";

export const getScenario = procedure({ auth: "apiKey" })
  .meta(getScenarioMeta)
  .input(ZGetScenarioInput)
  .output(ZScenarioRunView)
  .query(({ ctx, input }) => getRun(ctx.db, { orgId: ctx.principal.org.id, id: input.id }));
