import { procedure, scopeOf } from "@posture/platform";
import { createStandard as create } from "../services/standards";
import { createStandardMeta, ZCreateStandardInput, ZStandard } from "./standard.types";

// A new standard is assigned to nobody: no drift to compute until its assignments are set.
export const createStandard = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(createStandardMeta)
  .input(ZCreateStandardInput)
  .output(ZStandard)
  .mutation(({ ctx, input }) => create(ctx.db, { ...scopeOf(ctx.principal), ...input }));
