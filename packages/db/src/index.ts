export * from "./schema";
export * from "./client";
export { resolveDataDir, workspaceRoot } from "./paths";
export { prepared } from "./prepared";
