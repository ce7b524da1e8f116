import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";
import { createActionProcedure } from "../procedures/action-create";
import { getActionProcedure } from "../procedures/action-get";
import { listActionsProcedure } from "../procedures/action-list";

/** /partner/actions (issue 17, item 5): act once, everywhere. */
export const actionsRouter = (deps: TPartnerDeps) =>
  router({
    create: createActionProcedure(deps),
    list: listActionsProcedure,
    get: getActionProcedure,
  });
