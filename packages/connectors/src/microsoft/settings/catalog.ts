import type { TAccessRequirement, TSettingValue } from "../../types";
import { GLOBAL_ADMIN_ROLE_TEMPLATE_ID } from "./api";

/**
 * One Microsoft 365 tenant setting the connector reads: its key (what the checks of
 * `@posture/benchmarks` name), where it comes from, and the value the demo tenant has.
 */
export type TMicrosoftSettingSpec = { key: string; title: string; source: string; demo: TSettingValue };

// Where each group of settings is read, and what reading it needs.

export const PATHS = {
  securityDefaults: "/v1.0/policies/identitySecurityDefaultsEnforcementPolicy",
  authorization: "/v1.0/policies/authorizationPolicy",
  conditionalAccess: "/v1.0/identity/conditionalAccess/policies",
  authMethods: "/v1.0/policies/authenticationMethodsPolicy",
  sharepoint: "/v1.0/admin/sharepoint/settings",
  globalAdmins: `/v1.0/directoryRoles(roleTemplateId='${GLOBAL_ADMIN_ROLE_TEMPLATE_ID}')/members`,
  domains: "/v1.0/domains",
  adminConsent: "/v1.0/policies/adminConsentRequestPolicy",
} as const;

export type TGroup = keyof typeof PATHS;

/** What a 403 on each group means: the least-privileged application permission (and licence). */
export const NEEDS: Record<TGroup, { permission: string; licence?: string }> = {
  securityDefaults: { permission: "Policy.Read.All" },
  authorization: { permission: "Policy.Read.All" },
  conditionalAccess: { permission: "Policy.Read.All", licence: "Microsoft Entra ID P1" },
  authMethods: { permission: "Policy.Read.AuthenticationMethod" },
  sharepoint: { permission: "SharePointTenantSettings.Read.All" },
  globalAdmins: { permission: "RoleManagement.Read.Directory" },
  domains: { permission: "Domain.Read.All" },
  adminConsent: { permission: "Policy.Read.All" },
};

export const source = (group: TGroup) => `GET ${PATHS[group]}`;

type TSpecDraft = Omit<TMicrosoftSettingSpec, "source"> & { group: TGroup };

export const DRAFTS: readonly TSpecDraft[] = [
  // Security defaults
  {
    group: "securityDefaults",
    key: "security_defaults.enabled",
    title: "Security defaults enabled",
    demo: false,
  },
  // Authorization policy (Entra admin center > Users > User settings; External collaboration settings)
  {
    group: "authorization",
    key: "authorization.users_can_register_apps",
    title: "Users can register applications",
    demo: true,
  },
  {
    group: "authorization",
    key: "authorization.users_can_create_tenants",
    title: "Non-admin users can create tenants",
    demo: false,
  },
  {
    group: "authorization",
    key: "authorization.user_consent",
    title: "User consent for applications (disabled, low_impact, all_apps or custom)",
    demo: "low_impact",
  },
  {
    group: "authorization",
    key: "authorization.guest_user_role",
    title: "Guest user access (member, limited or restricted)",
    demo: "limited",
  },
  {
    group: "authorization",
    key: "authorization.allow_invites_from",
    title: "Who can invite guests",
    demo: "everyone",
  },
  {
    group: "authorization",
    key: "authorization.block_msol_powershell",
    title: "Legacy MSOnline PowerShell blocked",
    demo: true,
  },
  // Admin consent workflow
  {
    group: "adminConsent",
    key: "admin_consent_request.enabled",
    title: "Users can request admin consent",
    demo: true,
  },
  // Roles and domains
  {
    group: "globalAdmins",
    key: "roles.global_admin_count",
    title: "Number of Global Administrators",
    demo: 6,
  },
  {
    group: "domains",
    key: "domains.passwords_never_expire",
    title: "Passwords never expire on every verified managed domain",
    demo: true,
  },
  // Conditional access (only policies in state "enabled" count)
  {
    group: "conditionalAccess",
    key: "ca.enabled_policy_count",
    title: "Enabled Conditional Access policies",
    demo: 7,
  },
  {
    group: "conditionalAccess",
    key: "ca.mfa_all_users",
    title: "Conditional Access requires MFA for all users on all cloud apps",
    demo: true,
  },
  {
    group: "conditionalAccess",
    key: "ca.mfa_admin_roles",
    title: "Conditional Access requires MFA for every administrative role",
    demo: true,
  },
  {
    group: "conditionalAccess",
    key: "ca.block_legacy_auth",
    title: "Conditional Access blocks legacy authentication (Exchange ActiveSync and other clients)",
    demo: true,
  },
  {
    group: "conditionalAccess",
    key: "ca.admin_session_controls",
    title: "Admins: sign-in frequency of 4 hours or less and no persistent browser session",
    demo: false,
  },
  {
    group: "conditionalAccess",
    key: "ca.phishing_resistant_mfa_admins",
    title: "Admins: phishing-resistant MFA authentication strength required",
    demo: false,
  },
  {
    group: "conditionalAccess",
    key: "ca.user_risk_policy",
    title: "High user risk requires MFA and a password change (or is blocked)",
    demo: false,
  },
  {
    group: "conditionalAccess",
    key: "ca.sign_in_risk_policy",
    title: "Medium and high sign-in risk require MFA (or are blocked)",
    demo: true,
  },
  {
    group: "conditionalAccess",
    key: "ca.admin_portals_restricted",
    title: "Microsoft Admin Portals blocked for users without an admin role",
    demo: true,
  },
  {
    group: "conditionalAccess",
    key: "ca.managed_device_required",
    title: "Sign-in requires a compliant or Entra hybrid joined device",
    demo: true,
  },
  {
    group: "conditionalAccess",
    key: "ca.device_code_flow_blocked",
    title: "Device code flow blocked",
    demo: false,
  },
  // Authentication methods policy
  {
    group: "authMethods",
    key: "auth_methods.authenticator_show_context",
    title: "Microsoft Authenticator shows the application name and the geographic location",
    demo: true,
  },
  { group: "authMethods", key: "auth_methods.sms_enabled", title: "SMS sign-in method enabled", demo: true },
  {
    group: "authMethods",
    key: "auth_methods.voice_enabled",
    title: "Voice call method enabled",
    demo: false,
  },
  {
    group: "authMethods",
    key: "auth_methods.email_otp_enabled",
    title: "Email one-time passcode method enabled",
    demo: false,
  },
  {
    group: "authMethods",
    key: "auth_methods.registration_campaign",
    title: "Authenticator registration campaign state (default, enabled or disabled)",
    demo: "default",
  },
  // SharePoint and OneDrive tenant settings
  {
    group: "sharepoint",
    key: "sharepoint.sharing_capability",
    title: "SharePoint external sharing level",
    demo: "externalUserAndGuestSharing",
  },
  {
    group: "sharepoint",
    key: "sharepoint.guest_resharing",
    title: "Guests can share items they don't own",
    demo: false,
  },
  {
    group: "sharepoint",
    key: "sharepoint.sharing_domain_restriction_mode",
    title: "External sharing limited by domain (none, allowList or blockList)",
    demo: "allowList",
  },
  {
    group: "sharepoint",
    key: "sharepoint.legacy_auth_enabled",
    title: "Apps that don't use modern authentication can access SharePoint",
    demo: false,
  },
  {
    group: "sharepoint",
    key: "sharepoint.unmanaged_sync_restricted",
    title: "OneDrive sync only on computers joined to specific domains",
    demo: true,
  },
];

export const MICROSOFT_SETTINGS: readonly TMicrosoftSettingSpec[] = DRAFTS.map(({ group, ...spec }) => ({
  ...spec,
  source: source(group),
}));

/** The application permissions reading the settings needs (merged into the connector's access list). */
export const MICROSOFT_SETTINGS_ACCESS: readonly TAccessRequirement[] = [
  {
    feature: "Tenant settings: security defaults, authorization, consent and Conditional Access policies",
    permission: "Policy.Read.All",
    impact:
      "Security defaults, user and guest settings, consent settings and Conditional Access policies are not checked.",
  },
  {
    feature: "Tenant settings: Conditional Access policies",
    permission: "Policy.Read.All",
    licence: "Microsoft Entra ID P1",
    impact:
      "Without Entra ID P1 no Conditional Access policy applies: MFA, legacy authentication and risk checks are skipped.",
  },
  {
    feature: "Tenant settings: authentication methods policy",
    permission: "Policy.Read.AuthenticationMethod",
    impact: "SMS, voice, email one-time passcode and Microsoft Authenticator settings are not checked.",
  },
  {
    feature: "Tenant settings: SharePoint and OneDrive sharing",
    permission: "SharePointTenantSettings.Read.All",
    impact:
      "SharePoint external sharing, guest resharing, domain limits and sync restrictions are not checked.",
  },
  {
    feature: "Tenant settings: Global Administrator count",
    permission: "RoleManagement.Read.Directory",
    impact: "The number of Global Administrators is not checked.",
  },
  {
    feature: "Tenant settings: password expiration policy",
    permission: "Domain.Read.All",
    impact: "The password expiration policy of the tenant's domains is not checked.",
  },
];

/** Settings by key, as a reader of one group of resources derives them. */
export type TValues = Record<string, TSettingValue>;
