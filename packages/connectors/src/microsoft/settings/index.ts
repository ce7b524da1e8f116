// Microsoft 365 tenant settings: what is read and from where (catalog.ts), the Graph resources
// (api.ts), what each yields (entra.ts, conditional-access.ts, sharepoint.ts), and the read (read.ts).
export {
  CIS_ADMIN_ROLE_TEMPLATE_IDS,
  GLOBAL_ADMIN_ROLE_TEMPLATE_ID,
  GUEST_ROLE,
  MAX_BREAK_GLASS_EXCLUSIONS,
  PASSWORD_NEVER_EXPIRES_DAYS,
  PHISHING_RESISTANT_STRENGTH_ID,
  type TMsAdminConsentRequestPolicy,
  type TMsAuthenticationMethodConfiguration,
  type TMsAuthenticationMethodsPolicy,
  type TMsAuthorizationPolicy,
  type TMsConditionalAccessPolicy,
  type TMsDirectoryObject,
  type TMsDomain,
  type TMsSecurityDefaultsPolicy,
  type TMsSharepointSettings,
} from "./api";
export { MICROSOFT_SETTINGS, MICROSOFT_SETTINGS_ACCESS, type TMicrosoftSettingSpec } from "./catalog";
export { conditionalAccessValues } from "./conditional-access";
export { readMicrosoftSettings } from "./read";
