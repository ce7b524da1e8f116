export {
  openWorkspaceSnapshot,
  type TSnapshotMode,
  type TSnapshotResult,
  type TSnapshotScope,
  type TWorkspaceSink,
} from "./store/snapshot-writer";
export type { TSnapshotCounts } from "./store/finish-snapshot";
export { workspaceRouter } from "./router";
export { lapseExpiredApprovals } from "./services/approvals";
export { rebuildFlowGraph } from "./store/flow-graph";
export { workspaceJobs, APPROVALS_LAPSE_JOB } from "./jobs";
export { getInventory } from "./services/inventory";
export { listSharingItems } from "./services/sharing-items";
// The store's share rating, for the test that checks it against the rule engine's.
export { baseSeverity, sensitivityOf } from "./store/classify";
export {
  changeStoredFile,
  changeStoredFiles,
  removeStoredGrant,
  restoreStoredGrant,
  type TStoredFileChange,
  type TStoredGrant,
  type TStoredPermission,
} from "./store/remediate";
// A partner's reads of a managed client (@posture/composition, its partner wiring): the same schema and service.
export { getSharingOverview } from "./services/sharing-overview";
export { ZGetSharingOverviewOutput } from "./procedures/sharing.types";
