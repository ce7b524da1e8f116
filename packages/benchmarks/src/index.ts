export * from "./types";
export { GOOGLE_WORKSPACE_CHECKS } from "./google-workspace";
export { MICROSOFT_365_CHECKS } from "./microsoft-365";
export { GITHUB_CHECKS } from "./github";
export { checksFor, evaluateTenantChecks, type TCheckResult, type TCheckStatus } from "./evaluate";
