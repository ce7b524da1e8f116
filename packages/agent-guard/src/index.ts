export { agentGuardRouter } from "./router";
