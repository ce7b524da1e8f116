import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";
import { createStandard } from "../procedures/standard-create";
import { deleteStandard } from "../procedures/standard-delete";
import { getStandard } from "../procedures/standard-get";
import { listStandards } from "../procedures/standard-list";
import { listStandardDrift } from "../procedures/standard-list-drift";
import { setStandardAssignments } from "../procedures/standard-set-assignments";
import { updateStandard } from "../procedures/standard-update";

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
