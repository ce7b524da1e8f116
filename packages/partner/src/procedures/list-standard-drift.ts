import { offsetPage, procedure } from "@posture/platform";
import { listDrift } from "../services/drift-list";
import { listStandardDriftMeta, ZListDriftOutput, ZListStandardDriftInput } from "./drift.types";

export const listStandardDrift = procedure({ auth: "partner", plan: "enterprise" })
  .meta(listStandardDriftMeta)
  .input(ZListStandardDriftInput)
  .output(ZListDriftOutput)
  .query(async ({ ctx, input: { id, ...q } }) => {
    const { rows, total } = await listDrift(ctx.db, {
      partnerOrgId: ctx.principal.org.id,
      standardId: id,
      ...q,
    });
    return offsetPage(rows, { total, ...q }, "drift");
  });
