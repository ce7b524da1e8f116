import { router } from "@posture/platform";
import { getAgentInventory } from "./procedures/get-agent-inventory";
import { getAgentTimeline } from "./procedures/get-agent-timeline";
import { getRiskMatrix } from "./procedures/get-risk-matrix";

export const agentGuardRouter = router({ getAgentInventory, getRiskMatrix, getAgentTimeline });
