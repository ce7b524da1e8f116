import { router } from "@posture/platform";
import { getGraph } from "./procedures/get-graph";

export const flowGuardRouter = router({ flowGuard: router({ graph: router({ get: getGraph }) }) });
