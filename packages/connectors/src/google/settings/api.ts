// The Admin SDK Directory and Cloud Identity Policy API shapes the tenant settings are read from,
// and the scopes the reads need.
export const POLICIES_SCOPE = "https://www.googleapis.com/auth/cloud-identity.policies.readonly";
export const DIRECTORY_USERS_SCOPE = "https://www.googleapis.com/auth/admin.directory.user.readonly";
export const ORG_UNITS_SCOPE = "https://www.googleapis.com/auth/admin.directory.orgunit.readonly";
export const ROLES_SCOPE = "https://www.googleapis.com/auth/admin.directory.rolemanagement.readonly";

export type TPolicyValue = Record<string, unknown>;

/** The admin accounts the Directory lists (super admins and delegated admins). */
export type TGAdminUser = {
  id?: string;
  primaryEmail?: string;
  isAdmin?: boolean;
  isDelegatedAdmin?: boolean;
  isEnforcedIn2Sv?: boolean;
  isEnrolledIn2Sv?: boolean;
  suspended?: boolean;
  archived?: boolean;
  orgUnitPath?: string;
};

/** A Cloud Identity policy as `policies.list` returns it. */
export type TGPolicy = {
  name?: string;
  customer?: string;
  policyQuery?: { query?: string; orgUnit?: string; group?: string; sortOrder?: number };
  setting?: { type?: string; value?: TPolicyValue };
  type?: "POLICY_TYPE_UNSPECIFIED" | "SYSTEM" | "ADMIN";
};
export type TGPolicyList = { policies?: TGPolicy[]; nextPageToken?: string };
export type TGUserList = { users?: TGAdminUser[]; nextPageToken?: string };
export type TGOrgUnit = { orgUnitId?: string; orgUnitPath?: string; parentOrgUnitId?: string; name?: string };
export type TGOrgUnitList = { organizationUnits?: TGOrgUnit[] };

export type TGRole = {
  roleId?: string;
  roleName?: string;
  isSuperAdminRole?: boolean;
  isSystemRole?: boolean;
};
export type TGRoleAssignment = {
  roleAssignmentId?: string;
  roleId?: string;
  assignedTo?: string;
  assigneeType?: "user" | "group";
  scopeType?: string;
  orgUnitId?: string;
};
export type TRoleData = { superAdminRoleIds: ReadonlySet<string>; assignments: readonly TGRoleAssignment[] };
