export * from "./schema";
export * from "./severity";
export * from "./finding-categories";
export * from "./client";
export {
  CLIENT_TIMEOUT_MARGIN_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  QueryTimeoutError,
  requestBound,
  type TQueryBound,
} from "./bounded-pool";
export { DatabaseBusyError } from "./embedded-gate";
export { acquireDataDirLock, DataDirInUseError, lockFileOf, type TDataDirHolder } from "./data-dir-lock";
export { resolveDataDir, workspaceRoot } from "./paths";
export { prepared } from "./prepared";
export { arrayLiteral, fromExcluded, unnestRows, type TArrayColumn } from "./upsert";
export { lockOrg } from "./locks";
export { createWritePipeline, type TWritePipeline } from "./pipeline";
export { canCopy, copyField, copyRows, isPgTransaction, pgClientOf } from "./copy";
export * from "./share-rating";
export {
  CONNECTOR_PARTITIONED,
  analyzeAfterWrite,
  emptyConnectorPartitions,
  isLockTimeout,
  partitionName,
  sweepConnectorPartitions,
  withLockRetry,
  type TAnalyzedTable,
  type TLockRetry,
  type TPartitionedTable,
} from "./partitions";
export { demoOverlayStore } from "./demo-overlay";
export { errorReason, queryErrorFields, type TQueryErrorFields } from "./query-error";
export {
  agentIdOf,
  agentWho,
  listAgentPrincipals,
  type TAgentPrincipal,
  reachCounts,
  reachCte,
  reachPage,
  reachRowOf,
  type TReachCounts,
  type TReachFileRow,
  type TReachPageInput,
  type TReachRow,
  type TReachWho,
} from "./reach";
export {
  AI_REACH_WORST,
  ANY_ASSISTANT,
  aiReachInputsKey,
  computeAiReach,
  refreshAiReach,
  type TAiReachCarry,
  type TAiReachSubject,
  type TStoreVersion,
} from "./reach/materialise";
