import {
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
} from "@posture/connectors/wire";
import { pageAt, type TFakeRequest, type TFakeResponse } from "./fake-server";
import { graphDenied, graphError, graphNotPremium } from "./graph-errors";

// Graph v1.0's tenant-policy resources as the reference documents them: singletons with their
// @odata.context, collections as `value` arrays with @odata.nextLink paging, 403
// Authorization_RequestDenied when the app lacks every permission the path accepts (the list is
// graph-permissions.json's, application scheme), and $select limited to declared properties.

/** The fake tenant's settings as Graph's policy and admin resources would hold them. */
export type TGraphSettingsFixture = {
  securityDefaults: TMsSecurityDefaultsPolicy;
  authorizationPolicy: TMsAuthorizationPolicy;
  conditionalAccessPolicies: TMsConditionalAccessPolicy[];
  authenticationMethodsPolicy: TMsAuthenticationMethodsPolicy;
  sharepointSettings: TMsSharepointSettings;
  /** Members of the Global Administrator directory role (users and service principals). */
  globalAdmins: TMsDirectoryObject[];
  domains: TMsDomain[];
  adminConsentRequestPolicy: TMsAdminConsentRequestPolicy;
  /** The application permissions the app was granted; absent: every permission. */
  granted?: string[];
  /** Whether the tenant has Microsoft Entra ID P1 (Conditional Access); absent: true. */
  entraIdP1?: boolean;
  /** Conditional Access policies per page (Graph pages them; the fake forces small pages). */
  caPageSize?: number;
};

type TResource = {
  /** Application permissions that allow GET on the path (any one suffices). */
  permissions: string[];
  /** Properties $select may name (the entity's declared properties in the v1.0 CSDL). */
  properties: string[];
  context: string;
};

const RESOURCES: Record<string, TResource> = {
  "/v1.0/policies/identitySecurityDefaultsEnforcementPolicy": {
    permissions: ["Policy.Read.All", "Policy.ReadWrite.SecurityDefaults"],
    properties: ["id", "displayName", "description", "isEnabled"],
    context: "policies/identitySecurityDefaultsEnforcementPolicy/$entity",
  },
  "/v1.0/policies/authorizationPolicy": {
    permissions: ["Policy.Read.All", "Policy.ReadWrite.Authorization"],
    properties: [
      "id",
      "displayName",
      "description",
      "allowedToSignUpEmailBasedSubscriptions",
      "allowedToUseSSPR",
      "allowEmailVerifiedUsersToJoinOrganization",
      "allowInvitesFrom",
      "allowUserConsentForRiskyApps",
      "blockMsolPowerShell",
      "defaultUserRolePermissions",
      "guestUserRoleId",
    ],
    context: "policies/authorizationPolicy/$entity",
  },
  "/v1.0/identity/conditionalAccess/policies": {
    permissions: ["Policy.Read.All", "Policy.ReadWrite.ConditionalAccess"],
    properties: [
      "id",
      "displayName",
      "description",
      "state",
      "conditions",
      "grantControls",
      "sessionControls",
      "createdDateTime",
      "modifiedDateTime",
      "templateId",
    ],
    context: "identity/conditionalAccess/policies",
  },
  "/v1.0/policies/authenticationMethodsPolicy": {
    permissions: [
      "Policy.Read.AuthenticationMethod",
      "Policy.ReadWrite.AuthenticationMethod",
      "Policy.Read.All",
    ],
    properties: [
      "id",
      "displayName",
      "description",
      "lastModifiedDateTime",
      "policyMigrationState",
      "policyVersion",
      "reconfirmationInDays",
      "registrationEnforcement",
      "authenticationMethodConfigurations",
    ],
    context: "policies/authenticationMethodsPolicy/$entity",
  },
  "/v1.0/admin/sharepoint/settings": {
    permissions: ["SharePointTenantSettings.Read.All", "SharePointTenantSettings.ReadWrite.All"],
    properties: [
      "id",
      "sharingCapability",
      "isResharingByExternalUsersEnabled",
      "sharingDomainRestrictionMode",
      "sharingAllowedDomainList",
      "sharingBlockedDomainList",
      "isUnmanagedSyncAppForTenantRestricted",
      "allowedDomainGuidsForSyncApp",
      "isLegacyAuthProtocolsEnabled",
      "isRequireAcceptingUserToMatchInvitedUserEnabled",
    ],
    context: "admin/sharepoint/settings/$entity",
  },
  [`/v1.0/directoryRoles(roleTemplateId='${GLOBAL_ADMIN_ROLE_TEMPLATE_ID}')/members`]: {
    permissions: [
      "RoleManagement.Read.Directory",
      "RoleManagement.ReadWrite.Directory",
      "Directory.Read.All",
      "Directory.ReadWrite.All",
    ],
    properties: ["id", "deletedDateTime"],
    context: "directoryObjects",
  },
  "/v1.0/domains": {
    permissions: ["Domain.Read.All", "Domain.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"],
    properties: [
      "id",
      "authenticationType",
      "availabilityStatus",
      "isAdminManaged",
      "isDefault",
      "isInitial",
      "isRoot",
      "isVerified",
      "passwordNotificationWindowInDays",
      "passwordValidityPeriodInDays",
      "state",
      "supportedServices",
    ],
    context: "domains",
  },
  "/v1.0/policies/adminConsentRequestPolicy": {
    permissions: [
      "Policy.Read.All",
      "Policy.ReadWrite.ConsentRequest",
      "Directory.Read.All",
      "Directory.ReadWrite.All",
    ],
    properties: [
      "id",
      "isEnabled",
      "notifyReviewers",
      "remindersEnabled",
      "requestDurationInDays",
      "reviewers",
      "version",
    ],
    context: "policies/adminConsentRequestPolicy/$entity",
  },
};

function selected<T extends object>(item: T, select: string[] | null): Partial<T> {
  if (!select) return item;
  return Object.fromEntries(
    Object.entries(item).filter(([key]) => key.startsWith("@odata.") || select.includes(key)),
  ) as Partial<T>;
}

function entity(req: TFakeRequest, context: string, item: object, select: string[] | null): TFakeResponse {
  return {
    status: 200,
    body: { "@odata.context": `${origin(req)}/v1.0/$metadata#${context}`, ...selected(item, select) },
  };
}

function origin(req: TFakeRequest): string {
  return `http://${String(req.headers.host ?? "localhost")}`;
}

function collection(
  req: TFakeRequest,
  context: string,
  items: object[],
  select: string[] | null,
  size: number,
): TFakeResponse {
  const at = pageAt(items, req.query.get("$skiptoken"), size);
  if (at === "invalid") return graphError(400, "BadRequest", "Invalid $skiptoken");
  const body: Record<string, unknown> = {
    "@odata.context": `${origin(req)}/v1.0/$metadata#${context}`,
    value: at.page.map((i) => selected(i, select)),
  };
  if (at.nextToken !== undefined) {
    const next = new URLSearchParams(req.query);
    next.set("$skiptoken", at.nextToken);
    body["@odata.nextLink"] = `${origin(req)}${req.path}?${next.toString()}`;
  }
  return { status: 200, body };
}

/** The fake Graph's routes for tenant settings; undefined for a path that is not one of them. */
export function graphSettingsRoute(
  fixture: TGraphSettingsFixture | undefined,
  req: TFakeRequest,
): TFakeResponse | undefined {
  if (!fixture) return undefined;
  const path = decodeURIComponent(req.path);
  const resource = RESOURCES[path];
  if (!resource) return undefined;
  if (req.method !== "GET") return graphError(405, "Request_BadRequest", "Method not allowed.");

  const granted = fixture.granted;
  if (granted && !resource.permissions.some((p) => granted.includes(p))) {
    return graphDenied();
  }
  const rawSelect = req.query.get("$select");
  const select = rawSelect ? rawSelect.split(",").map((s) => s.trim()) : null;
  const unknown = select?.find((s) => !resource.properties.includes(s));
  if (unknown) {
    return graphError(
      400,
      "BadRequest",
      `Could not find a property named '${unknown}' on type 'microsoft.graph.entity'.`,
    );
  }

  switch (path) {
    case "/v1.0/policies/identitySecurityDefaultsEnforcementPolicy":
      return entity(
        req,
        resource.context,
        {
          id: "00000000-0000-0000-0000-000000000005",
          displayName: "Security Defaults",
          description:
            "Security defaults is a set of basic identity security mechanisms recommended by Microsoft.",
          ...fixture.securityDefaults,
        },
        select,
      );
    case "/v1.0/policies/authorizationPolicy":
      return entity(
        req,
        resource.context,
        { id: "authorizationPolicy", displayName: "Authorization Policy", ...fixture.authorizationPolicy },
        select,
      );
    case "/v1.0/identity/conditionalAccess/policies":
      if (fixture.entraIdP1 === false) {
        // Assumed shape: Graph's premium-feature refusal (as for sign-in logs); see docs/decisions.md.
        return graphNotPremium();
      }
      return collection(
        req,
        resource.context,
        fixture.conditionalAccessPolicies,
        select,
        fixture.caPageSize ?? 2,
      );
    case "/v1.0/policies/authenticationMethodsPolicy":
      return entity(
        req,
        resource.context,
        { id: "authenticationMethodsPolicy", ...fixture.authenticationMethodsPolicy },
        select,
      );
    case "/v1.0/admin/sharepoint/settings":
      return entity(
        req,
        resource.context,
        { id: "sharepointSettings", ...fixture.sharepointSettings },
        select,
      );
    case "/v1.0/domains":
      return collection(req, resource.context, fixture.domains, select, 100);
    case "/v1.0/policies/adminConsentRequestPolicy":
      return entity(
        req,
        resource.context,
        { id: "adminConsentRequestPolicy", ...fixture.adminConsentRequestPolicy },
        select,
      );
    default:
      // Global Administrator members.
      return collection(req, resource.context, fixture.globalAdmins, select, 100);
  }
}

// ---------------------------------------------------------------------------------------------
// Fixtures: a tenant where every CIS check passes, and one where every check fails.

const BREAK_GLASS = "bbbbbbbb-0000-0000-0000-00000000b001";

const adminUser = (n: number): TMsDirectoryObject => ({
  "@odata.type": "#microsoft.graph.user",
  id: `aaaaaaaa-0000-0000-0000-${String(n).padStart(12, "0")}`,
});

function policy(
  id: string,
  rest: Omit<TMsConditionalAccessPolicy, "id" | "displayName">,
): TMsConditionalAccessPolicy {
  return { id, displayName: id, ...rest };
}

const allUsers = { includeUsers: ["All"], excludeUsers: [BREAK_GLASS], excludeGroups: [], excludeRoles: [] };
const allApps = { includeApplications: ["All"], excludeApplications: [] };
const adminRoles = { includeRoles: [...CIS_ADMIN_ROLE_TEMPLATE_IDS], includeUsers: [], excludeRoles: [] };

/** A tenant configured as CIS Microsoft 365 Foundations v4.0.0 recommends (every check passes). */
export function buildSecureGraphSettings(): TGraphSettingsFixture {
  return {
    securityDefaults: { isEnabled: false },
    authorizationPolicy: {
      allowInvitesFrom: "adminsAndGuestInviters",
      allowedToUseSSPR: true,
      allowUserConsentForRiskyApps: false,
      blockMsolPowerShell: true,
      guestUserRoleId: GUEST_ROLE.restricted,
      defaultUserRolePermissions: {
        allowedToCreateApps: false,
        allowedToCreateSecurityGroups: false,
        allowedToCreateTenants: false,
        allowedToReadOtherUsers: true,
        permissionGrantPoliciesAssigned: [
          "ManagePermissionGrantsForOwnedResource.microsoft-dynamically-managed-permissions-for-team",
        ],
      },
    },
    conditionalAccessPolicies: [
      policy("CA001 Require MFA for all users", {
        state: "enabled",
        conditions: { users: allUsers, applications: allApps, clientAppTypes: ["all"] },
        grantControls: { operator: "OR", builtInControls: ["mfa"] },
      }),
      policy("CA002 Block legacy authentication", {
        state: "enabled",
        conditions: {
          users: allUsers,
          applications: allApps,
          clientAppTypes: ["exchangeActiveSync", "other"],
        },
        grantControls: { operator: "OR", builtInControls: ["block"] },
      }),
      policy("CA003 Admins: phishing-resistant MFA", {
        state: "enabled",
        conditions: { users: adminRoles, applications: allApps, clientAppTypes: ["all"] },
        grantControls: {
          operator: "OR",
          builtInControls: [],
          authenticationStrength: {
            id: PHISHING_RESISTANT_STRENGTH_ID,
            displayName: "Phishing-resistant MFA",
          },
        },
      }),
      policy("CA004 Admins: sign-in frequency and no persistent browser", {
        state: "enabled",
        conditions: { users: adminRoles, applications: allApps, clientAppTypes: ["all"] },
        grantControls: null,
        sessionControls: {
          signInFrequency: { isEnabled: true, type: "hours", value: 4, frequencyInterval: "timeBased" },
          persistentBrowser: { isEnabled: true, mode: "never" },
        },
      }),
      policy("CA005 High user risk", {
        state: "enabled",
        conditions: {
          users: allUsers,
          applications: allApps,
          clientAppTypes: ["all"],
          userRiskLevels: ["high"],
        },
        grantControls: { operator: "AND", builtInControls: ["mfa", "passwordChange"] },
      }),
      policy("CA006 Medium and high sign-in risk", {
        state: "enabled",
        conditions: {
          users: allUsers,
          applications: allApps,
          clientAppTypes: ["all"],
          signInRiskLevels: ["high", "medium"],
        },
        grantControls: { operator: "OR", builtInControls: ["mfa"] },
      }),
      policy("CA007 Admin portals for admins only", {
        state: "enabled",
        conditions: {
          users: { includeUsers: ["All"], excludeRoles: [...CIS_ADMIN_ROLE_TEMPLATE_IDS] },
          applications: { includeApplications: ["MicrosoftAdminPortals"] },
          clientAppTypes: ["all"],
        },
        grantControls: { operator: "OR", builtInControls: ["block"] },
      }),
      policy("CA008 Managed devices", {
        state: "enabled",
        conditions: { users: allUsers, applications: allApps, clientAppTypes: ["all"] },
        grantControls: { operator: "OR", builtInControls: ["mfa", "compliantDevice", "domainJoinedDevice"] },
      }),
      policy("CA009 Block device code flow", {
        state: "enabled",
        conditions: {
          users: allUsers,
          applications: allApps,
          clientAppTypes: ["all"],
          authenticationFlows: { transferMethods: "deviceCodeFlow,authenticationTransfer" },
        },
        grantControls: { operator: "OR", builtInControls: ["block"] },
      }),
    ],
    authenticationMethodsPolicy: {
      registrationEnforcement: { authenticationMethodsRegistrationCampaign: { state: "enabled" } },
      authenticationMethodConfigurations: [
        {
          "@odata.type": "#microsoft.graph.microsoftAuthenticatorAuthenticationMethodConfiguration",
          id: "MicrosoftAuthenticator",
          state: "enabled",
          featureSettings: {
            displayAppInformationRequiredState: { state: "enabled" },
            displayLocationInformationRequiredState: { state: "enabled" },
          },
        },
        {
          "@odata.type": "#microsoft.graph.smsAuthenticationMethodConfiguration",
          id: "Sms",
          state: "disabled",
        },
        {
          "@odata.type": "#microsoft.graph.voiceAuthenticationMethodConfiguration",
          id: "Voice",
          state: "disabled",
        },
        {
          "@odata.type": "#microsoft.graph.emailAuthenticationMethodConfiguration",
          id: "Email",
          state: "disabled",
        },
        {
          "@odata.type": "#microsoft.graph.fido2AuthenticationMethodConfiguration",
          id: "Fido2",
          state: "enabled",
        },
      ],
    },
    sharepointSettings: {
      sharingCapability: "externalUserSharingOnly",
      isResharingByExternalUsersEnabled: false,
      sharingDomainRestrictionMode: "allowList",
      isUnmanagedSyncAppForTenantRestricted: true,
      allowedDomainGuidsForSyncApp: ["4b5d6a8e-0c3f-4a1e-9b7d-2f6c8e1a3d50"],
      isLegacyAuthProtocolsEnabled: false,
    },
    globalAdmins: [adminUser(1), adminUser(2), adminUser(3)],
    domains: [
      {
        id: "contoso.test",
        authenticationType: "Managed",
        isVerified: true,
        passwordValidityPeriodInDays: PASSWORD_NEVER_EXPIRES_DAYS,
      },
      {
        id: "contoso.onmicrosoft.test",
        authenticationType: "Managed",
        isVerified: true,
        passwordValidityPeriodInDays: PASSWORD_NEVER_EXPIRES_DAYS,
      },
      // Federated: its password policy is the identity provider's, not Entra ID's.
      {
        id: "corp.contoso.test",
        authenticationType: "Federated",
        isVerified: true,
        passwordValidityPeriodInDays: 90,
      },
    ],
    adminConsentRequestPolicy: {
      isEnabled: true,
      notifyReviewers: true,
      remindersEnabled: true,
      requestDurationInDays: 30,
      version: 1,
    },
  };
}

/** A tenant left at permissive settings, with look-alike policies that enforce nothing (every check fails). */
export function buildWeakGraphSettings(): TGraphSettingsFixture {
  return {
    securityDefaults: { isEnabled: true },
    authorizationPolicy: {
      allowInvitesFrom: "everyone",
      allowedToUseSSPR: true,
      allowUserConsentForRiskyApps: true,
      blockMsolPowerShell: false,
      guestUserRoleId: GUEST_ROLE.member,
      defaultUserRolePermissions: {
        allowedToCreateApps: true,
        allowedToCreateSecurityGroups: true,
        allowedToCreateTenants: null,
        allowedToReadOtherUsers: true,
        permissionGrantPoliciesAssigned: ["ManagePermissionGrantsForSelf.microsoft-user-default-legacy"],
      },
    },
    conditionalAccessPolicies: [
      // Report-only: evaluated and logged, never enforced.
      policy("MFA for everyone (report-only)", {
        state: "enabledForReportingButNotEnforced",
        conditions: { users: allUsers, applications: allApps, clientAppTypes: ["all"] },
        grantControls: { operator: "OR", builtInControls: ["mfa"] },
      }),
      policy("Block legacy auth (disabled)", {
        state: "disabled",
        conditions: {
          users: allUsers,
          applications: allApps,
          clientAppTypes: ["exchangeActiveSync", "other"],
        },
        grantControls: { operator: "OR", builtInControls: ["block"] },
      }),
      // MFA can be skipped with a compliant device: OR of the two.
      policy("MFA or compliant device", {
        state: "enabled",
        conditions: {
          users: { ...allUsers, excludeGroups: ["g-executives"] },
          applications: allApps,
          clientAppTypes: ["all"],
        },
        grantControls: { operator: "OR", builtInControls: ["mfa", "compliantDevice"] },
      }),
      // Only the Global Administrator role, and only for Exchange.
      policy("Admins MFA for Exchange", {
        state: "enabled",
        conditions: {
          users: { includeRoles: [GLOBAL_ADMIN_ROLE_TEMPLATE_ID] },
          applications: { includeApplications: ["00000002-0000-0ff1-ce00-000000000000"] },
          clientAppTypes: ["all"],
        },
        grantControls: { operator: "OR", builtInControls: ["mfa"] },
        sessionControls: {
          signInFrequency: { isEnabled: true, type: "days", value: 7, frequencyInterval: "timeBased" },
        },
      }),
      policy("High sign-in risk only", {
        state: "enabled",
        conditions: {
          users: allUsers,
          applications: allApps,
          clientAppTypes: ["all"],
          signInRiskLevels: ["high"],
        },
        grantControls: { operator: "OR", builtInControls: ["mfa"] },
      }),
    ],
    authenticationMethodsPolicy: {
      registrationEnforcement: { authenticationMethodsRegistrationCampaign: { state: "disabled" } },
      authenticationMethodConfigurations: [
        {
          "@odata.type": "#microsoft.graph.microsoftAuthenticatorAuthenticationMethodConfiguration",
          id: "MicrosoftAuthenticator",
          state: "enabled",
          featureSettings: {
            displayAppInformationRequiredState: { state: "default" },
            displayLocationInformationRequiredState: { state: "disabled" },
          },
        },
        {
          "@odata.type": "#microsoft.graph.smsAuthenticationMethodConfiguration",
          id: "Sms",
          state: "enabled",
        },
        {
          "@odata.type": "#microsoft.graph.voiceAuthenticationMethodConfiguration",
          id: "Voice",
          state: "enabled",
        },
        {
          "@odata.type": "#microsoft.graph.emailAuthenticationMethodConfiguration",
          id: "Email",
          state: "enabled",
        },
      ],
    },
    sharepointSettings: {
      sharingCapability: "externalUserAndGuestSharing",
      isResharingByExternalUsersEnabled: true,
      sharingDomainRestrictionMode: "none",
      // The switch is on but no domain is allowed: nothing restricts sync to managed computers.
      isUnmanagedSyncAppForTenantRestricted: true,
      allowedDomainGuidsForSyncApp: [],
      isLegacyAuthProtocolsEnabled: true,
    },
    // One person holds Global Administrator; the service principal does not count.
    globalAdmins: [adminUser(1), { "@odata.type": "#microsoft.graph.servicePrincipal", id: "sp-automation" }],
    domains: [
      {
        id: "contoso.test",
        authenticationType: "Managed",
        isVerified: true,
        passwordValidityPeriodInDays: 90,
      },
      {
        id: "contoso.onmicrosoft.test",
        authenticationType: "Managed",
        isVerified: true,
        passwordValidityPeriodInDays: PASSWORD_NEVER_EXPIRES_DAYS,
      },
    ],
    adminConsentRequestPolicy: {
      isEnabled: false,
      notifyReviewers: false,
      remindersEnabled: false,
      requestDurationInDays: 0,
      version: 0,
    },
  };
}
