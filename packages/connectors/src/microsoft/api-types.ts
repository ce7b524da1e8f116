// The slices of Microsoft Graph v1.0 resources the adapter reads.

/** v1.0 `group`: `mail` is null for security groups that are not mail-enabled. */
export type TMsGroup = { id?: string; displayName?: string; mail?: string | null };

export type TMsUser = {
  id?: string;
  displayName?: string;
  mail?: string | null;
  userPrincipalName?: string;
  accountEnabled?: boolean;
  createdDateTime?: string;
  signInActivity?: { lastSignInDateTime?: string | null; lastSuccessfulSignInDateTime?: string | null };
  /** v1.0 `assignedLicense`: the SKU and the service plans disabled for this user. */
  assignedLicenses?: TMsAssignedLicense[];
};

export type TMsAssignedLicense = { skuId?: string | null; disabledPlans?: string[] };

export type TMsRegistrationDetails = {
  id?: string;
  userPrincipalName?: string;
  isAdmin?: boolean;
  isMfaRegistered?: boolean;
};

export type TMsOrganization = {
  id?: string;
  createdDateTime?: string;
  verifiedDomains?: Array<{ name?: string; isDefault?: boolean; isInitial?: boolean }>;
};

/** `identity` in v1.0 declares only `id` and `displayName`: no email (resolve the id through /users). */
export type TMsIdentity = { id?: string; displayName?: string };

/**
 * `sharePointIdentity` adds `loginName` (a claims login such as `i:0#.f|membership|alex@contoso.com`);
 * its `id` is a SharePoint number, never an Entra object id.
 */
export type TMsSharePointIdentity = TMsIdentity & { loginName?: string };

export type TMsDrive = {
  id?: string;
  name?: string;
  driveType?: "personal" | "business" | "documentLibrary";
  owner?: { user?: TMsIdentity; group?: TMsIdentity };
};

export type TMsSite = { id?: string; displayName?: string; webUrl?: string };

export type TMsDriveItem = {
  id?: string;
  name?: string;
  size?: number;
  lastModifiedDateTime?: string;
  file?: { mimeType?: string };
  folder?: { childCount?: number };
  root?: object;
  /** Set on an item a delta reports deleted (its `state`, when Graph gives one). */
  deleted?: { state?: string };
  createdBy?: { user?: TMsIdentity };
  /** `id`: the parent folder's item id. */
  parentReference?: { driveId?: string; driveType?: string; id?: string };
};

/** `sharePointIdentitySet` (grantedToV2, grantedToIdentitiesV2): identitySet plus SharePoint's own principals. */
export type TMsIdentitySet = {
  application?: TMsIdentity;
  device?: TMsIdentity;
  // `identity` is an open type: SharePoint puts the claims `loginName` on `user` too.
  user?: TMsSharePointIdentity;
  group?: TMsIdentity;
  siteUser?: TMsSharePointIdentity;
  siteGroup?: TMsSharePointIdentity;
};

export type TMsPermission = {
  id?: string;
  roles?: string[];
  link?: { scope?: "anonymous" | "organization" | "users" | "existingAccess"; type?: string };
  /** When a sharing link stops working; absent or null: never (Graph `permission.expirationDateTime`). */
  expirationDateTime?: string | null;
  grantedToV2?: TMsIdentitySet;
  grantedToIdentitiesV2?: TMsIdentitySet[];
  invitation?: { email?: string };
};

/** v1.0 has no `publisherName` (beta only): the publisher comes from `verifiedPublisher` and the owner tenant. */
export type TMsServicePrincipal = {
  id?: string;
  appId?: string;
  displayName?: string;
  appOwnerOrganizationId?: string | null;
  servicePrincipalType?: string;
  verifiedPublisher?: { displayName?: string | null; verifiedPublisherId?: string | null } | null;
  /** Roles the API (a resource service principal) defines; application permissions name them. */
  appRoles?: Array<{ id?: string; value?: string | null; allowedMemberTypes?: string[] }>;
};

/**
 * An agent's identity in Entra (Graph v1.0 `agentIdentity`, a servicePrincipal subtype listed at
 * /servicePrincipals/microsoft.graph.agentIdentity), made from an agent blueprint.
 */
export type TMsAgentIdentity = TMsServicePrincipal & { agentIdentityBlueprintId?: string };

/**
 * A package of the Microsoft 365 Copilot admin catalog (Graph v1.0 `copilotPackageDetail`,
 * /copilot/admin/catalog/packages). `elementTypes` names what it holds: `DeclarativeAgent`,
 * `CustomEngineCopilot`, `Bot`, ... (packageElementDetail's documentation).
 */
export type TMsCopilotPackage = {
  id?: string;
  appId?: string | null;
  displayName?: string | null;
  publisher?: string | null;
  type?: "microsoft" | "external" | "shared" | "custom" | "unknownFutureValue";
  elementTypes?: string[];
  isBlocked?: boolean;
  availableTo?: "none" | "some" | "all" | "unknownFutureValue";
  deployedTo?: "none" | "some" | "all" | "unknownFutureValue";
  createdDateTime?: string | null;
};

/** An application permission: app role `appRoleId` of API `resourceId`, granted to `principalId`. */
export type TMsAppRoleAssignment = {
  id?: string;
  appRoleId?: string;
  createdDateTime?: string | null;
  principalId?: string;
  principalType?: "ServicePrincipal" | "User" | "Group";
  principalDisplayName?: string | null;
  resourceId?: string;
};

export type TMsPermissionGrant = {
  id?: string;
  clientId?: string;
  consentType?: "AllPrincipals" | "Principal";
  principalId?: string | null;
  resourceId?: string;
  scope?: string;
};

export type TMsSignIn = {
  id?: string;
  createdDateTime?: string;
  userPrincipalName?: string;
  appDisplayName?: string;
  appId?: string;
  status?: { errorCode?: number };
};

/** The answer of POST /drives/{id}/items/{id}/extractSensitivityLabels (`extractSensitivityLabelsResult`). */
export type TMsExtractSensitivityLabelsResult = {
  labels?: Array<{ sensitivityLabelId?: string; assignmentMethod?: string; tenantId?: string }>;
};

/** A Microsoft Purview sensitivity label of the tenant (GET /security/dataSecurityAndGovernance/sensitivityLabels). */
export type TMsSensitivityLabel = {
  id?: string;
  name?: string | null;
  displayName?: string | null;
  priority?: number | null;
  sublabels?: TMsSensitivityLabel[];
};

/** A subscription of the tenant and the service plans it carries (GET /subscribedSkus). */
export type TMsSubscribedSku = {
  id?: string;
  skuId?: string;
  skuPartNumber?: string;
  capabilityStatus?: string;
  servicePlans?: Array<{ servicePlanId?: string; servicePlanName?: string; provisioningStatus?: string }>;
};
