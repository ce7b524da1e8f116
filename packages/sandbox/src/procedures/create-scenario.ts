import { procedure, scopeOf } from "@posture/platform";
import { startScenario } from "../services/scenarios";
import { createScenarioMeta, ZCreateScenarioInput, ZScenarioRun } from "./create-scenario.types";

export const createScenario = procedure({ auth: "apiKey", role: "ADMIN" })
  .meta(createScenarioMeta)
  .input(ZCreateScenarioInput)
  .output(ZScenarioRun)
  .mutation(({ ctx, input }) =>
    startScenario(
      ctx.db,
      ctx.jobs,
      { ...scopeOf(ctx.principal), kind: input.kind },
      { encryptionKey: ctx.runtime.encryptionKey },
    ),
  );
