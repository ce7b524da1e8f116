import { router } from "@posture/platform";
import { applyRemediation } from "./procedures/apply-remediation-plan";
import { approveRemediation } from "./procedures/approve-remediation";
import { cancelRemediation } from "./procedures/cancel-remediation";
import { planRemediation } from "./procedures/create-remediation";
import { getRemediation } from "./procedures/get-remediation";
import { listRemediations } from "./procedures/list-remediations";
import { getRemediationSettings } from "./procedures/get-remediation-settings";
import { updateRemediationSettings } from "./procedures/update-remediation-settings";
import { undoRemediation } from "./procedures/undo-remediation";

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

export { simulatePosture } from "./procedures/simulate-posture";
