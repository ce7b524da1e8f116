export { flowGuardRouter } from "./router";
export { getFlowGraph } from "./services/graph";
