export * from "./types";
export { GOOGLE_WORKSPACE_CHECKS } from "./google-workspace";
export { MICROSOFT_365_CHECKS } from "./microsoft-365";
