import { procedure, scopeOf } from "@posture/platform";
import { deleteStandard as remove } from "../services/standards";
import { deleteStandardMeta, ZDeleteStandardOutput, ZStandardIdInput } from "./standard.types";

// The standard's drift rows are deleted with it: nothing to recompute.
export const deleteStandard = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(deleteStandardMeta)
  .input(ZStandardIdInput)
  .output(ZDeleteStandardOutput)
  .mutation(({ ctx, input }) => remove(ctx.db, { ...scopeOf(ctx.principal), id: input.id }));
