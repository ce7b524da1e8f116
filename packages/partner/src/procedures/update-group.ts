import { procedure, scopeOf } from "@posture/platform";
import { updateGroup as update } from "../services/groups";
import { updateGroupMeta, ZGroupDetail, ZUpdateGroupInput } from "./group.types";

export const updateGroup = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(updateGroupMeta)
  .input(ZUpdateGroupInput)
  .output(ZGroupDetail)
  .mutation(({ ctx, input }) => update(ctx.db, { ...scopeOf(ctx.principal), ...input }));
