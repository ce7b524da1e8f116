import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";
import { createStandard } from "../procedures/create-standard";
import { deleteStandard } from "../procedures/delete-standard";
import { getStandard } from "../procedures/get-standard";
import { listStandards } from "../procedures/list-standards";
import { listStandardDrift } from "../procedures/list-standard-drift";
import { setStandardAssignments } from "../procedures/set-standard-assignments";
import { updateStandard } from "../procedures/update-standard";

/** /api/partner/standards: baselines, their assignments and each client's drift (issue 17, item 3). */
export const standardsRouter = (_deps: TPartnerDeps) =>
  router({
    list: listStandards,
    create: createStandard,
    get: getStandard,
    update: updateStandard,
    delete: deleteStandard,
    assignments: router({ set: setStandardAssignments }),
    drift: router({ list: listStandardDrift }),
  });
