import type { TJsonClient } from "../http/client";
import { SourceHttpError } from "../http/errors";
import { graphItems } from "../http/paginate";
import { SourceAuthError, type TAccessRequirement, type TSettingValue, type TTenantSetting } from "../types";

/**
 * One Microsoft 365 tenant setting the connector reads: its key (what the checks of
 * `@posture/benchmarks` name), where it comes from, and the value the demo tenant has.
 */
export type TMicrosoftSettingSpec = { key: string; title: string; source: string; demo: TSettingValue };

// ---------------------------------------------------------------------------------------------
// The slices of the Graph v1.0 policy and admin resources read here (names as in the v1.0 CSDL).

export type TMsSecurityDefaultsPolicy = { id?: string; isEnabled?: boolean };

export type TMsAuthorizationPolicy = {
  id?: string;
  allowInvitesFrom?: "none" | "adminsAndGuestInviters" | "adminsGuestInvitersAndAllMembers" | "everyone";
  allowedToUseSSPR?: boolean;
  allowUserConsentForRiskyApps?: boolean | null;
  blockMsolPowerShell?: boolean;
  guestUserRoleId?: string;
  defaultUserRolePermissions?: {
    allowedToCreateApps?: boolean;
    allowedToCreateSecurityGroups?: boolean;
    allowedToCreateTenants?: boolean | null;
    allowedToReadOtherUsers?: boolean;
    permissionGrantPoliciesAssigned?: string[];
  };
};

export type TMsConditionalAccessPolicy = {
  id?: string;
  displayName?: string;
  state?: "enabled" | "disabled" | "enabledForReportingButNotEnforced";
  conditions?: {
    users?: {
      includeUsers?: string[];
      excludeUsers?: string[];
      includeGroups?: string[];
      excludeGroups?: string[];
      includeRoles?: string[];
      excludeRoles?: string[];
    };
    applications?: {
      includeApplications?: string[];
      excludeApplications?: string[];
      includeUserActions?: string[];
    };
    clientAppTypes?: string[];
    signInRiskLevels?: string[];
    userRiskLevels?: string[];
    authenticationFlows?: { transferMethods?: string } | null;
    locations?: { includeLocations?: string[]; excludeLocations?: string[] } | null;
    platforms?: { includePlatforms?: string[]; excludePlatforms?: string[] } | null;
  };
  grantControls?: {
    operator?: string;
    builtInControls?: string[];
    authenticationStrength?: { id?: string; displayName?: string } | null;
  } | null;
  sessionControls?: {
    signInFrequency?: {
      isEnabled?: boolean;
      type?: "days" | "hours" | null;
      value?: number | null;
      frequencyInterval?: "timeBased" | "everyTime";
    } | null;
    persistentBrowser?: { isEnabled?: boolean; mode?: "always" | "never" } | null;
  } | null;
};

export type TMsAuthenticationMethodConfiguration = {
  "@odata.type"?: string;
  id?: string;
  state?: "enabled" | "disabled";
  featureSettings?: {
    displayAppInformationRequiredState?: { state?: "default" | "enabled" | "disabled" };
    displayLocationInformationRequiredState?: { state?: "default" | "enabled" | "disabled" };
  };
};

export type TMsAuthenticationMethodsPolicy = {
  id?: string;
  registrationEnforcement?: {
    authenticationMethodsRegistrationCampaign?: { state?: "default" | "enabled" | "disabled" };
  };
  authenticationMethodConfigurations?: TMsAuthenticationMethodConfiguration[];
};

export type TMsSharepointSettings = {
  sharingCapability?:
    | "disabled"
    | "externalUserSharingOnly"
    | "externalUserAndGuestSharing"
    | "existingExternalUserSharingOnly";
  isResharingByExternalUsersEnabled?: boolean;
  sharingDomainRestrictionMode?: "none" | "allowList" | "blockList";
  isUnmanagedSyncAppForTenantRestricted?: boolean;
  allowedDomainGuidsForSyncApp?: string[];
  isLegacyAuthProtocolsEnabled?: boolean;
};

export type TMsDirectoryObject = { "@odata.type"?: string; id?: string };

export type TMsDomain = {
  id?: string;
  authenticationType?: string;
  isVerified?: boolean;
  passwordValidityPeriodInDays?: number | null;
};

export type TMsAdminConsentRequestPolicy = {
  isEnabled?: boolean;
  notifyReviewers?: boolean;
  remindersEnabled?: boolean;
  requestDurationInDays?: number;
  version?: number;
};

// ---------------------------------------------------------------------------------------------

/** The Global Administrator role's template id, the same in every tenant. */
export const GLOBAL_ADMIN_ROLE_TEMPLATE_ID = "62e90394-69f5-4237-9190-012177145e10";

/**
 * The administrative roles CIS Microsoft 365 Foundations v4.0.0 (5.2.2.1, 5.2.2.4, 5.2.2.5) asks
 * Conditional Access to cover "at a minimum", by role template id.
 */
export const CIS_ADMIN_ROLE_TEMPLATE_IDS: readonly string[] = [
  "9b895d92-2cd3-44c7-9d02-a6ac2d5ea5c3", // Application Administrator
  "c4e39bd9-1100-46d3-8c65-fb160da0071f", // Authentication Administrator
  "b0f54661-2d74-4c50-afa3-1ec803f12efe", // Billing Administrator
  "158c047a-c907-4556-b7ef-446551a6b5f7", // Cloud Application Administrator
  "b1be1c3e-b65d-4f19-8427-f6fa0d97feb9", // Conditional Access Administrator
  "29232cdf-9323-42fd-ade2-1d097af3e4de", // Exchange Administrator
  GLOBAL_ADMIN_ROLE_TEMPLATE_ID, // Global Administrator
  "f2ef992c-3afb-46b9-b7cf-a126ee74c451", // Global Reader
  "729827e3-9c14-49f7-bb1b-9608f156bbb8", // Helpdesk Administrator
  "966707d0-3269-4727-9be2-8c3a10f19b9d", // Password Administrator
  "7be44c8a-adaf-4e2a-84d6-ab2649e08a13", // Privileged Authentication Administrator
  "e8611ab8-c189-46e8-94e1-60213ab1f814", // Privileged Role Administrator
  "194ae4cb-b126-40b2-bd5b-6091b380977d", // Security Administrator
  "f28a1f50-f6e7-4571-818b-6a12f2af6b6c", // SharePoint Administrator
  "fe930be7-5e62-47db-91af-98c3a49a38b1", // User Administrator
];

/** guestUserRoleId values (Graph docs, authorizationPolicy). */
export const GUEST_ROLE = {
  member: "a0b1b346-4d3e-4e8b-98f8-753987be4970",
  limited: "10dae51f-b6af-4016-8d66-8c2a99b929b3",
  restricted: "2af84b1e-32c8-42b7-82bc-daa82404023b",
} as const;

/** The built-in "Phishing-resistant MFA" authentication strength. */
export const PHISHING_RESISTANT_STRENGTH_ID = "00000000-0000-0000-0000-000000000004";

/** Entra ID's value of passwordValidityPeriodInDays for "passwords never expire". */
export const PASSWORD_NEVER_EXPIRES_DAYS = 2147483647;

/** Emergency-access ("break glass") accounts CIS 1.1.2 allows a policy to exclude. */
export const MAX_BREAK_GLASS_EXCLUSIONS = 2;

// ---------------------------------------------------------------------------------------------
// Where each group of settings is read, and what reading it needs.

const PATHS = {
  securityDefaults: "/v1.0/policies/identitySecurityDefaultsEnforcementPolicy",
  authorization: "/v1.0/policies/authorizationPolicy",
  conditionalAccess: "/v1.0/identity/conditionalAccess/policies",
  authMethods: "/v1.0/policies/authenticationMethodsPolicy",
  sharepoint: "/v1.0/admin/sharepoint/settings",
  globalAdmins: `/v1.0/directoryRoles(roleTemplateId='${GLOBAL_ADMIN_ROLE_TEMPLATE_ID}')/members`,
  domains: "/v1.0/domains",
  adminConsent: "/v1.0/policies/adminConsentRequestPolicy",
} as const;

type TGroup = keyof typeof PATHS;

/** What a 403 on each group means: the least-privileged application permission (and licence). */
const NEEDS: Record<TGroup, { permission: string; licence?: string }> = {
  securityDefaults: { permission: "Policy.Read.All" },
  authorization: { permission: "Policy.Read.All" },
  conditionalAccess: { permission: "Policy.Read.All", licence: "Microsoft Entra ID P1" },
  authMethods: { permission: "Policy.Read.AuthenticationMethod" },
  sharepoint: { permission: "SharePointTenantSettings.Read.All" },
  globalAdmins: { permission: "RoleManagement.Read.Directory" },
  domains: { permission: "Domain.Read.All" },
  adminConsent: { permission: "Policy.Read.All" },
};

const source = (group: TGroup) => `GET ${PATHS[group]}`;

type TSpecDraft = Omit<TMicrosoftSettingSpec, "source"> & { group: TGroup };

const DRAFTS: readonly TSpecDraft[] = [
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

// ---------------------------------------------------------------------------------------------
// Deriving the settings from Graph's resources.

type TValues = Record<string, TSettingValue>;

function userConsent(assigned: string[] | undefined): string {
  const self = (assigned ?? []).filter((p) => p.startsWith("ManagePermissionGrantsForSelf."));
  if (self.length === 0) return "disabled";
  const ids = self.map((p) => p.slice("ManagePermissionGrantsForSelf.".length));
  if (ids.includes("microsoft-user-default-legacy")) return "all_apps";
  if (ids.length === 1 && ids[0] === "microsoft-user-default-low") return "low_impact";
  return "custom";
}

function guestRole(id: string | undefined): string {
  if (id === GUEST_ROLE.restricted) return "restricted";
  if (id === GUEST_ROLE.limited) return "limited";
  if (id === GUEST_ROLE.member) return "member";
  return id ?? "unknown";
}

function fromAuthorization(p: TMsAuthorizationPolicy): TValues {
  const d = p.defaultUserRolePermissions ?? {};
  return {
    "authorization.users_can_register_apps": d.allowedToCreateApps ?? true,
    // null (never set) means the default: non-admin users may create tenants.
    "authorization.users_can_create_tenants": d.allowedToCreateTenants ?? true,
    "authorization.user_consent": userConsent(d.permissionGrantPoliciesAssigned),
    "authorization.guest_user_role": guestRole(p.guestUserRoleId),
    "authorization.allow_invites_from": p.allowInvitesFrom ?? "everyone",
    "authorization.block_msol_powershell": p.blockMsolPowerShell ?? false,
  };
}

// Conditional Access: a policy counts only when its state is "enabled" (report-only and disabled
// policies enforce nothing). A requirement is met when one enabled policy targets the users and
// the apps the benchmark names, with the grant or session control it names.

const has = (list: string[] | undefined, value: string) => (list ?? []).includes(value);

function targetsAllUsers(p: TMsConditionalAccessPolicy): boolean {
  const u = p.conditions?.users ?? {};
  return (
    has(u.includeUsers, "All") &&
    (u.excludeUsers ?? []).length <= MAX_BREAK_GLASS_EXCLUSIONS &&
    (u.excludeGroups ?? []).length === 0 &&
    (u.excludeRoles ?? []).length === 0
  );
}

function targetsRole(p: TMsConditionalAccessPolicy, roleId: string): boolean {
  const u = p.conditions?.users ?? {};
  if (has(u.excludeRoles, roleId)) return false;
  return targetsAllUsers(p) || has(u.includeRoles, roleId);
}

function targetsAllApps(p: TMsConditionalAccessPolicy): boolean {
  const a = p.conditions?.applications ?? {};
  return has(a.includeApplications, "All") && (a.excludeApplications ?? []).length === 0;
}

function blocks(p: TMsConditionalAccessPolicy): boolean {
  return has(p.grantControls?.builtInControls, "block");
}

/** The policy applies to every sign-in: no risk, client app, location or platform condition narrows it. */
function unconditional(p: TMsConditionalAccessPolicy): boolean {
  const c = p.conditions ?? {};
  const clientApps = c.clientAppTypes ?? [];
  return (
    (c.signInRiskLevels ?? []).length === 0 &&
    (c.userRiskLevels ?? []).length === 0 &&
    (clientApps.length === 0 || clientApps.includes("all")) &&
    !c.locations &&
    !c.platforms
  );
}

/** MFA is required when it cannot be bypassed: the only control, every control (AND), or a strength. */
function requiresMfa(p: TMsConditionalAccessPolicy): boolean {
  const g = p.grantControls;
  if (!g) return false;
  if (g.authenticationStrength?.id) return true;
  const controls = g.builtInControls ?? [];
  if (!controls.includes("mfa")) return false;
  return controls.length === 1 || g.operator === "AND";
}

function signInFrequencyAtMost4Hours(p: TMsConditionalAccessPolicy): boolean {
  const f = p.sessionControls?.signInFrequency;
  if (!f?.isEnabled) return false;
  if (f.frequencyInterval === "everyTime") return true;
  return f.type === "hours" && typeof f.value === "number" && f.value <= 4;
}

function noPersistentBrowser(p: TMsConditionalAccessPolicy): boolean {
  const b = p.sessionControls?.persistentBrowser;
  return Boolean(b?.isEnabled) && b?.mode === "never";
}

/** Every CIS admin role is covered by some enabled policy meeting `meets`. */
function coversAdminRoles(
  policies: TMsConditionalAccessPolicy[],
  meets: (p: TMsConditionalAccessPolicy) => boolean,
): boolean {
  const qualifying = policies.filter((p) => targetsAllApps(p) && unconditional(p) && meets(p));
  return CIS_ADMIN_ROLE_TEMPLATE_IDS.every((role) => qualifying.some((p) => targetsRole(p, role)));
}

/** Derives the `ca.*` settings from every policy of the tenant (only enabled ones count). */
export function conditionalAccessValues(all: TMsConditionalAccessPolicy[]): TValues {
  const enabled = all.filter((p) => p.state === "enabled");
  const allUsersAllApps = enabled.filter((p) => targetsAllUsers(p) && targetsAllApps(p));
  return {
    "ca.enabled_policy_count": enabled.length,
    "ca.mfa_all_users": allUsersAllApps.some((p) => unconditional(p) && requiresMfa(p)),
    "ca.mfa_admin_roles": coversAdminRoles(enabled, requiresMfa),
    "ca.block_legacy_auth": allUsersAllApps.some(
      (p) =>
        blocks(p) &&
        has(p.conditions?.clientAppTypes, "exchangeActiveSync") &&
        has(p.conditions?.clientAppTypes, "other"),
    ),
    "ca.admin_session_controls": coversAdminRoles(
      enabled,
      (p) => signInFrequencyAtMost4Hours(p) && noPersistentBrowser(p),
    ),
    "ca.phishing_resistant_mfa_admins": coversAdminRoles(
      enabled,
      (p) => p.grantControls?.authenticationStrength?.id === PHISHING_RESISTANT_STRENGTH_ID,
    ),
    "ca.user_risk_policy": allUsersAllApps.some(
      (p) =>
        has(p.conditions?.userRiskLevels, "high") &&
        (blocks(p) ||
          (has(p.grantControls?.builtInControls, "mfa") &&
            has(p.grantControls?.builtInControls, "passwordChange") &&
            p.grantControls?.operator === "AND")),
    ),
    "ca.sign_in_risk_policy": allUsersAllApps.some(
      (p) =>
        has(p.conditions?.signInRiskLevels, "high") &&
        has(p.conditions?.signInRiskLevels, "medium") &&
        (blocks(p) || requiresMfa(p)),
    ),
    "ca.admin_portals_restricted": enabled.some((p) => {
      const u = p.conditions?.users ?? {};
      return (
        has(p.conditions?.applications?.includeApplications, "MicrosoftAdminPortals") &&
        has(u.includeUsers, "All") &&
        (u.excludeRoles ?? []).length > 0 &&
        blocks(p)
      );
    }),
    "ca.managed_device_required": allUsersAllApps.some((p) => {
      if (!unconditional(p)) return false;
      const controls = p.grantControls?.builtInControls ?? [];
      return controls.includes("compliantDevice") || controls.includes("domainJoinedDevice");
    }),
    "ca.device_code_flow_blocked": allUsersAllApps.some(
      (p) =>
        blocks(p) && (p.conditions?.authenticationFlows?.transferMethods ?? "").includes("deviceCodeFlow"),
    ),
  };
}

function fromAuthMethods(p: TMsAuthenticationMethodsPolicy): TValues {
  const config = (id: string) =>
    (p.authenticationMethodConfigurations ?? []).find((c) => c.id?.toLowerCase() === id.toLowerCase());
  const enabled = (id: string) => config(id)?.state === "enabled";
  const authenticator = config("MicrosoftAuthenticator");
  const features = authenticator?.featureSettings;
  return {
    "auth_methods.authenticator_show_context":
      authenticator?.state === "enabled" &&
      features?.displayAppInformationRequiredState?.state === "enabled" &&
      features?.displayLocationInformationRequiredState?.state === "enabled",
    "auth_methods.sms_enabled": enabled("Sms"),
    "auth_methods.voice_enabled": enabled("Voice"),
    "auth_methods.email_otp_enabled": enabled("Email"),
    "auth_methods.registration_campaign":
      p.registrationEnforcement?.authenticationMethodsRegistrationCampaign?.state ?? "default",
  };
}

function fromSharepoint(s: TMsSharepointSettings): TValues {
  return {
    "sharepoint.sharing_capability": s.sharingCapability ?? null,
    "sharepoint.guest_resharing": s.isResharingByExternalUsersEnabled ?? null,
    "sharepoint.sharing_domain_restriction_mode": s.sharingDomainRestrictionMode ?? null,
    "sharepoint.legacy_auth_enabled": s.isLegacyAuthProtocolsEnabled ?? null,
    // "Allow syncing only on computers joined to specific domains": the switch and its domain list.
    "sharepoint.unmanaged_sync_restricted":
      s.isUnmanagedSyncAppForTenantRestricted === undefined
        ? null
        : s.isUnmanagedSyncAppForTenantRestricted && (s.allowedDomainGuidsForSyncApp ?? []).length > 0,
  };
}

function fromDomains(domains: TMsDomain[]): TValues {
  // Federated domains take their password policy from the identity provider, not from Entra ID.
  const managed = domains.filter((d) => d.isVerified && d.authenticationType === "Managed");
  return {
    "domains.passwords_never_expire":
      managed.length > 0 &&
      managed.every((d) => d.passwordValidityPeriodInDays === PASSWORD_NEVER_EXPIRES_DAYS),
  };
}

async function collect<T>(graph: TJsonClient, path: string, query = {}): Promise<T[]> {
  const items: T[] = [];
  for await (const item of graphItems<T>(graph, path, query)) items.push(item);
  return items;
}

const READERS: Record<TGroup, (graph: TJsonClient) => Promise<TValues>> = {
  securityDefaults: async (graph) => {
    const p = await graph.get<TMsSecurityDefaultsPolicy>(PATHS.securityDefaults);
    return { "security_defaults.enabled": p.isEnabled ?? false };
  },
  authorization: async (graph) =>
    fromAuthorization(await graph.get<TMsAuthorizationPolicy>(PATHS.authorization)),
  conditionalAccess: async (graph) =>
    conditionalAccessValues(await collect<TMsConditionalAccessPolicy>(graph, PATHS.conditionalAccess)),
  authMethods: async (graph) =>
    fromAuthMethods(await graph.get<TMsAuthenticationMethodsPolicy>(PATHS.authMethods)),
  sharepoint: async (graph) => fromSharepoint(await graph.get<TMsSharepointSettings>(PATHS.sharepoint)),
  globalAdmins: async (graph) => {
    const members = await collect<TMsDirectoryObject>(graph, PATHS.globalAdmins);
    return {
      "roles.global_admin_count": members.filter((m) => m["@odata.type"] === "#microsoft.graph.user").length,
    };
  },
  domains: async (graph) =>
    fromDomains(
      await collect<TMsDomain>(graph, PATHS.domains, {
        $select: "id,authenticationType,isVerified,passwordValidityPeriodInDays",
      }),
    ),
  adminConsent: async (graph) => {
    const p = await graph.get<TMsAdminConsentRequestPolicy>(PATHS.adminConsent);
    return { "admin_consent_request.enabled": p.isEnabled ?? false };
  },
};

const LICENCE_MESSAGE = /licen[cs]e|premium/i;

/**
 * Why a group could not be read, or null when the failure is not about access. A 403 is a
 * missing permission, or a missing licence when Graph's message says so; a 400/404 (the resource
 * does not exist for this tenant, e.g. no SharePoint) is reported the same way. A 401 (the
 * credentials themselves refused, after the client's fresh-token retry) and 429/5xx after the
 * client's retries are not one setting's problem: they throw, like every other read of the adapter.
 */
function unavailableReason(group: TGroup, error: unknown): string | null {
  const needs = NEEDS[group];
  if (error instanceof SourceAuthError && /\(HTTP 403\)$/.test(error.message)) {
    if (needs.licence && LICENCE_MESSAGE.test(error.message)) return `${needs.licence} licence`;
    return `${needs.permission} application permission${needs.licence ? ` (and a ${needs.licence} licence)` : ""}`;
  }
  if (error instanceof SourceHttpError && (error.status === 400 || error.status === 404)) {
    return `${PATHS[group]} not readable in this tenant (HTTP ${error.status})`;
  }
  return null;
}

/** Every setting of MICROSOFT_SETTINGS, read or marked unavailable (never throws for one setting). */
export async function readMicrosoftSettings(graph: TJsonClient): Promise<TTenantSetting[]> {
  const groups = Object.keys(PATHS) as TGroup[];
  const results = await Promise.all(
    groups.map(async (group) => {
      try {
        return { group, values: await READERS[group](graph) };
      } catch (error) {
        const reason = unavailableReason(group, error);
        if (reason === null) throw error;
        return { group, unavailable: reason };
      }
    }),
  );
  const byGroup = new Map(results.map((r) => [r.group, r]));
  return DRAFTS.map((spec): TTenantSetting => {
    const result = byGroup.get(spec.group);
    if (!result || "unavailable" in result)
      return { key: spec.key, unavailable: result?.unavailable ?? "not read" };
    const value = result.values[spec.key];
    return value === undefined
      ? { key: spec.key, unavailable: `${PATHS[spec.group]} did not report it` }
      : { key: spec.key, value, source: source(spec.group) };
  });
}
