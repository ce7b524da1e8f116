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
