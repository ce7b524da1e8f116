export { agentGuardRouter } from "./router";
// A partner's reads of a managed client (@posture/composition, its partner wiring): the same schema and service.
export { getAgentInventory } from "./services/agents";
export { ZGetAgentInventoryOutput } from "./procedures/agent-guard.types";
