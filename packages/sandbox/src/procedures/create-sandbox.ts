import { procedure, scopeOf } from "@posture/platform";
import { createSandbox as create } from "../services/organizations";
import { createSandboxMeta, ZCreateSandboxInput, ZCreateSandboxOutput } from "./create-sandbox.types";

export const createSandbox = procedure({ auth: "session", role: "ADMIN" })
  .meta(createSandboxMeta)
  .input(ZCreateSandboxInput)
  .output(ZCreateSandboxOutput)
  .mutation(({ ctx, input }) =>
    create(ctx.db, { ...scopeOf(ctx.principal), name: input.name, partner: input.partner }),
  );
