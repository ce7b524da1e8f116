// Sandbox organizations: demo sources only, scenario triggers that change their synthetic tenants
// and run the scans a real change would, and a reset. See docs/sandbox.md.
export { sandboxRouter } from "./router";
export { sandboxJobs } from "./jobs/module";
export {
  assertSandbox,
  createSandboxOrganization,
  type TCreateSandboxOrganization,
} from "./services/organizations";
export { SANDBOX_RESET_JOB, SANDBOX_SCENARIO_JOB } from "./services/scenarios";
export { SCENARIO_KINDS, type TScenarioKind } from "./services/tenant-changes";
