import { router } from "@posture/platform";
import { getAgentInventory } from "./procedures/list-agent-inventory";
import { getAgentReach } from "./procedures/get-agent-reach";
import { getAgentTimeline } from "./procedures/get-agent-timeline";
import { getRiskMatrix } from "./procedures/get-risk-matrix";

export const agentGuardRouter = router({
  agentGuard: router({
    inventory: router({ list: getAgentInventory }),
    riskMatrix: router({ get: getRiskMatrix }),
    timeline: router({ get: getAgentTimeline }),
    agents: router({ reach: router({ get: getAgentReach }) }),
  }),
});
