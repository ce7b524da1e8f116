import { procedure, scopeOf } from "@posture/platform";
import { createGroup as create } from "../services/groups";
import { createGroupMeta, ZCreateGroupInput, ZGroupDetail } from "./group.types";

export const createGroup = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(createGroupMeta)
  .input(ZCreateGroupInput)
  .output(ZGroupDetail)
  .mutation(({ ctx, input }) => create(ctx.db, { ...scopeOf(ctx.principal), ...input }));
