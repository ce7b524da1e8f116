import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";
import { createActionProcedure } from "../procedures/create-action";
import { getActionProcedure } from "../procedures/get-action";
import { listActionsProcedure } from "../procedures/list-actions";

/** /partner/actions (issue 17, item 5): act once, everywhere. */
export const actionsRouter = (deps: TPartnerDeps) =>
  router({
    create: createActionProcedure(deps),
    list: listActionsProcedure,
    get: getActionProcedure,
  });
