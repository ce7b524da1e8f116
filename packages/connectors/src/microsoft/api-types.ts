// The slices of Microsoft Graph v1.0 resources the adapter reads.

export type TMsUser = {
  id?: string;
  displayName?: string;
  mail?: string | null;
  userPrincipalName?: string;
  accountEnabled?: boolean;
  createdDateTime?: string;
  signInActivity?: { lastSignInDateTime?: string | null; lastSuccessfulSignInDateTime?: string | null };
};

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

export type TMsIdentity = { id?: string; displayName?: string; email?: string; loginName?: string };

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
  deleted?: object;
  createdBy?: { user?: TMsIdentity };
  parentReference?: { driveId?: string; driveType?: string };
};

export type TMsIdentitySet = {
  user?: TMsIdentity;
  group?: TMsIdentity;
  siteUser?: TMsIdentity;
  siteGroup?: TMsIdentity;
};

export type TMsPermission = {
  id?: string;
  roles?: string[];
  link?: { scope?: "anonymous" | "organization" | "users" | "existingAccess"; type?: string };
  grantedToV2?: TMsIdentitySet;
  grantedToIdentitiesV2?: TMsIdentitySet[];
  invitation?: { email?: string };
};

export type TMsServicePrincipal = {
  id?: string;
  appId?: string;
  displayName?: string;
  publisherName?: string | null;
  appOwnerOrganizationId?: string | null;
  servicePrincipalType?: string;
  verifiedPublisher?: { displayName?: string | null; verifiedPublisherId?: string | null } | null;
  /** Roles the API (a resource service principal) defines; application permissions name them. */
  appRoles?: Array<{ id?: string; value?: string | null; allowedMemberTypes?: string[] }>;
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
