import { procedure } from "@posture/platform";
import { getAction } from "../services/actions";
import { ZAction } from "./action.types";
import { getActionMeta, ZGetActionInput } from "./get-action.types";

export const getActionProcedure = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(getActionMeta)
  .input(ZGetActionInput)
  .output(ZAction)
  .query(({ ctx, input }) => getAction(ctx.db, { partnerOrgId: ctx.principal.org.id, id: input.id }));
