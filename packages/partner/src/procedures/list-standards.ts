import { offsetPage, procedure } from "@posture/platform";
import { listStandards as listOf } from "../services/standards";
import { listStandardsMeta, ZListStandardsInput, ZListStandardsOutput } from "./standard.types";

export const listStandards = procedure({ auth: "partner", plan: "enterprise" })
  .meta(listStandardsMeta)
  .input(ZListStandardsInput)
  .output(ZListStandardsOutput)
  .query(async ({ ctx, input }) => {
    const { rows, total } = await listOf(ctx.db, { partnerOrgId: ctx.principal.org.id, ...input });
    return offsetPage(rows, { total, ...input }, "standards");
  });
