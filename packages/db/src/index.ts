export * from "./schema";
export * from "./severity";
export * from "./client";
export { resolveDataDir, workspaceRoot } from "./paths";
export { prepared } from "./prepared";
export { arrayLiteral, fromExcluded, unnestRows, type TArrayColumn } from "./upsert";
export { lockOrg } from "./locks";
export { createWritePipeline, type TWritePipeline } from "./pipeline";
export * from "./share-rating";
