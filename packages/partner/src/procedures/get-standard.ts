import { procedure } from "@posture/platform";
import { getStandard as get } from "../services/standards";
import { getStandardMeta, ZStandard, ZStandardIdInput } from "./standard.types";

export const getStandard = procedure({ auth: "partner", plan: "enterprise" })
  .meta(getStandardMeta)
  .input(ZStandardIdInput)
  .output(ZStandard)
  .query(({ ctx, input }) => get(ctx.db, { partnerOrgId: ctx.principal.org.id, id: input.id }));
