// `@posture/connectors/wire`: what a stand-in for a vendor needs to speak as the vendor does — the
// wire formats the adapters parse, the scopes and permissions they ask for, the token exchange and
// the HTTP options they take. The test-only @posture/fakes imports this, not the package entry, so a
// fake does not load the factory, the demo and every adapter.
export type * from "./google/api-types";
export type * from "./microsoft/api-types";
export { type TSourceAdapter, type TSourceGroup } from "./types";
export { type THttpOptions } from "./http/client";
export { GOOGLE_ACCESS, GOOGLE_SCOPE, GOOGLE_WRITE_SCOPE } from "./google/access";
export { googleTokens, type TGoogleServiceAccount } from "./google/auth";
export {
  DIRECTORY_USERS_SCOPE,
  ORG_UNITS_SCOPE,
  POLICIES_SCOPE,
  ROLES_SCOPE,
  type TGAdminUser,
  type TGOrgUnit,
  type TGPolicy,
  type TGRole,
  type TGRoleAssignment,
} from "./google/settings";
export {
  BROADER_PERMISSIONS,
  MANAGEMENT_API_PERMISSIONS,
  MICROSOFT_ACCESS,
  MICROSOFT_GRAPH_ACCESS,
  MICROSOFT_WRITE_ACCESS,
} from "./microsoft/access";
export { CONTENT_TYPES, type TO365Record } from "./microsoft/management-activity";
export {
  CIS_ADMIN_ROLE_TEMPLATE_IDS,
  GLOBAL_ADMIN_ROLE_TEMPLATE_ID,
  GUEST_ROLE,
  PASSWORD_NEVER_EXPIRES_DAYS,
  PHISHING_RESISTANT_STRENGTH_ID,
  type TMsAdminConsentRequestPolicy,
  type TMsAuthenticationMethodsPolicy,
  type TMsAuthorizationPolicy,
  type TMsConditionalAccessPolicy,
  type TMsDirectoryObject,
  type TMsDomain,
  type TMsSecurityDefaultsPolicy,
  type TMsSharepointSettings,
} from "./microsoft/settings";
export { signAppJwt } from "./github/auth";
export { type TGithubHttpOptions } from "./github/http";
