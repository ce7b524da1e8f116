import { procedure, scopeOf } from "@posture/platform";
import { startReset } from "../services/scenarios";
import { resetSandboxMeta, ZResetRun, ZResetSandboxInput } from "./reset-sandbox.types";

export const resetSandbox = procedure({ auth: "apiKey", role: "ADMIN" })
  .meta(resetSandboxMeta)
  .input(ZResetSandboxInput)
  .output(ZResetRun)
  .mutation(({ ctx }) => startReset(ctx.db, ctx.jobs, scopeOf(ctx.principal)));
