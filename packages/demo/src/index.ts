// The demo organizations with eight weeks of history, for a first start and `pnpm cli demo:seed`.
export { seedDemo } from "./seed";
export { seedDemoHistory, DEMO_FILES, DEMO_WEEKS, type TDemoHistory, type TDemoHistoryDeps } from "./history";
