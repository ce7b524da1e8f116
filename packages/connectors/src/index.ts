export * from "./types";
export { fileReach, groupsByEmail, type TFileReach, type TReachDirectory } from "./reach";
export {
  createSourceAdapter,
  DEMO_LIMITS,
  type TCreateSourceAdapterInput,
  type TSourceEndpoints,
} from "./factory";
export {
  parseConnectorCredentials,
  ZGoogleWorkspaceCredentials,
  ZMicrosoft365Credentials,
  type TConnectorCredentials,
} from "./credentials";
export { createDemoAdapter, describeDemoWorkspace, type TDemoOptions } from "./demo";
export { createGoogleWorkspaceAdapter, type TGoogleEndpoints } from "./google/adapter";
export { createMicrosoft365Adapter, type TMicrosoftEndpoints } from "./microsoft/adapter";
export { GOOGLE_SETTINGS, type TGoogleSettingSpec } from "./google/settings";
export { MICROSOFT_SETTINGS, type TMicrosoftSettingSpec } from "./microsoft/settings";
export { accessRequirementsOf } from "./access";
export { GOOGLE_ACCESS, GOOGLE_WRITE_ACCESS } from "./google/access";
export { MICROSOFT_ACCESS, MICROSOFT_WRITE_ACCESS } from "./microsoft/access";
export * from "./write";
export {
  createSourceWriter,
  sourceInputOf,
  type TCreateSourceWriterInput,
  type TStoredConnector,
} from "./factory";
export { EVERYONE_CLAIM_REASON, NEW_LINK_REASON, NO_RESTRICT_REASON, reversibilityOf } from "./reversibility";
export {
  GITHUB_OUTSIDE_DOMAIN,
  GITHUB_REPOSITORY_MIME,
  githubOrgDomain,
  githubOutsideEmail,
  githubSourceAdapter,
  VISIBILITY_PERMISSION_ID,
} from "./github/source";
export {
  GITHUB_DEMO_LIMITS,
  GITHUB_DEMO_MEMBERS,
  GITHUB_DEMO_ORG,
  createGithubDemoReads,
  githubDemoIndexOf,
  githubDemoRepositoryCount,
} from "./github/demo";
export { GITHUB_ACTIONS_SETTINGS, GITHUB_ORG_SETTINGS } from "./github/adapter";
export { GITHUB_ACCESS } from "./github/access";
export { GITHUB_WRITE_ACCESS } from "./github/write";
export { ZGithubCredentials } from "./credentials";
