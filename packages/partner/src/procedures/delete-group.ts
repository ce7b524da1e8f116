import { procedure, scopeOf } from "@posture/platform";
import { queuePartnerDrift } from "../services/drift";
import { deleteGroup as remove } from "../services/groups";
import { deleteGroupMeta, ZDeleteGroupOutput, ZGroupIdInput } from "./group.types";

export const deleteGroup = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(deleteGroupMeta)
  .input(ZGroupIdInput)
  .output(ZDeleteGroupOutput)
  .mutation(async ({ ctx, input }) => {
    const out = await remove(ctx.db, { ...scopeOf(ctx.principal), id: input.id });
    await queuePartnerDrift(ctx.jobs, ctx.principal.org.id);
    return out;
  });
