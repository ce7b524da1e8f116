// Google Workspace tenant settings: what is read (catalog.ts, one file per area), from which API
// shapes (api.ts), and how (read.ts).
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
} from "./api";
export { GOOGLE_SETTINGS, GOOGLE_SETTINGS_ACCESS, type TGoogleSettingSpec } from "./catalog";
export { policyFilter, readGoogleSettings, type TGoogleSettingsClients } from "./read";
