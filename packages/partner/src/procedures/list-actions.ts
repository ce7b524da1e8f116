import { procedure } from "@posture/platform";
import { listActions } from "../services/actions";
import { listActionsMeta, ZListActionsInput, ZListActionsOutput } from "./list-actions.types";

export const listActionsProcedure = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(listActionsMeta)
  .input(ZListActionsInput)
  .output(ZListActionsOutput)
  .query(({ ctx, input }) => listActions(ctx.db, { partnerOrgId: ctx.principal.org.id, ...input }));
