import { offsetPage, procedure } from "@posture/platform";
import { listDrift as listOf } from "../services/drift-list";
import { listDriftMeta, ZListDriftInput, ZListDriftOutput } from "./drift.types";

export const listDrift = procedure({ auth: "partner", plan: "enterprise" })
  .meta(listDriftMeta)
  .input(ZListDriftInput)
  .output(ZListDriftOutput)
  .query(async ({ ctx, input }) => {
    const { rows, total } = await listOf(ctx.db, { partnerOrgId: ctx.principal.org.id, ...input });
    return offsetPage(rows, { total, ...input }, "drift");
  });
