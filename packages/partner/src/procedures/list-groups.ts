import { offsetPage, procedure } from "@posture/platform";
import { listGroups as listOf } from "../services/groups";
import { listGroupsMeta, ZListGroupsInput, ZListGroupsOutput } from "./group.types";

export const listGroups = procedure({ auth: "partner", plan: "enterprise" })
  .meta(listGroupsMeta)
  .input(ZListGroupsInput)
  .output(ZListGroupsOutput)
  .query(async ({ ctx, input }) => {
    const { rows, total } = await listOf(ctx.db, { partnerOrgId: ctx.principal.org.id, ...input });
    return offsetPage(rows, { total, ...input }, "groups");
  });
