import { procedure } from "@posture/platform";
import { getGroup as get } from "../services/groups";
import { getGroupMeta, ZGroupDetail, ZGroupIdInput } from "./group.types";

export const getGroup = procedure({ auth: "partner", plan: "enterprise" })
  .meta(getGroupMeta)
  .input(ZGroupIdInput)
  .output(ZGroupDetail)
  .query(({ ctx, input }) => get(ctx.db, { partnerOrgId: ctx.principal.org.id, id: input.id }));
