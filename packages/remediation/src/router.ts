import { router } from "@posture/platform";
import { applyRemediation } from "./procedures/apply";
import { approveRemediation } from "./procedures/approve";
import { cancelRemediation } from "./procedures/cancel";
import { planRemediation } from "./procedures/create";
import { getRemediation } from "./procedures/get";
import { listRemediations } from "./procedures/list";
import { getRemediationSettings } from "./procedures/settings-get";
import { updateRemediationSettings } from "./procedures/settings-update";
import { undoRemediation } from "./procedures/undo";

// Keyed by the REST paths' first segments (docs/architecture.md, "Procedure keys").
export const remediationRouter = router({
  remediations: router({
    create: planRemediation,
    list: listRemediations,
    get: getRemediation,
    approve: approveRemediation,
    cancel: cancelRemediation,
    // `apply` is reserved by tRPC (a router is callable): procedure-keys.test.ts maps it here.
    applyPlan: applyRemediation,
    undo: undoRemediation,
  }),
  remediationSettings: router({ get: getRemediationSettings, update: updateRemediationSettings }),
});

export { simulatePosture } from "./procedures/simulate";
