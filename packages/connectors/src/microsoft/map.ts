import { classifyApp } from "../google/app-kind";
import { EPOCH } from "../shared/normalise";
import {
  type TActivityEvent,
  type TAppGrant,
  type TPermission,
  type TPermissionRole,
  type TSharedDrive,
  type TSourceFile,
  type TSourceUser,
} from "../types";
import {
  type TMsDrive,
  type TMsDriveItem,
  type TMsIdentitySet,
  type TMsPermission,
  type TMsPermissionGrant,
  type TMsRegistrationDetails,
  type TMsServicePrincipal,
  type TMsSignIn,
  type TMsUser,
} from "./api-types";

// Tenants that own Microsoft's first-party apps (Microsoft Services, and Microsoft's own corporate tenant).
export const MICROSOFT_TENANT_IDS = new Set([
  "f8cdef31-a31e-4b4a-93e4-5f571e91255a",
  "72f988bf-86f1-41af-91ab-2d7cd011db47",
]);

export type TEmailLookup = (userId: string | undefined) => string | undefined;

export function userEmail(user: TMsUser): string {
  return (user.mail || user.userPrincipalName || "").toLowerCase();
}

function latest(...values: Array<string | null | undefined>): string | null {
  const times = values.filter((v): v is string => typeof v === "string" && !Number.isNaN(Date.parse(v)));
  if (times.length === 0) return null;
  return new Date(Math.max(...times.map((t) => Date.parse(t)))).toISOString();
}

export function mapMsUser(user: TMsUser, registration: TMsRegistrationDetails | undefined): TSourceUser {
  const email = userEmail(user);
  return {
    id: user.id ?? email,
    email,
    name: user.displayName || email,
    isAdmin: registration?.isAdmin === true,
    mfaEnabled: registration?.isMfaRegistered === true,
    suspended: user.accountEnabled === false,
    lastLoginAt: latest(
      user.signInActivity?.lastSignInDateTime,
      user.signInActivity?.lastSuccessfulSignInDateTime,
    ),
    createdAt: user.createdDateTime ?? EPOCH,
  };
}

function roleOf(permission: TMsPermission): TPermissionRole {
  const roles = permission.roles ?? [];
  if (roles.includes("owner")) return "owner";
  if (roles.includes("write") || permission.link?.type === "edit") return "writer";
  if (permission.link?.type === "review") return "commenter";
  return "reader";
}

function identityPermission(
  identity: TMsIdentitySet,
  id: string,
  role: TPermissionRole,
  emailOf: TEmailLookup,
): TPermission | null {
  const user = identity.user ?? identity.siteUser;
  if (user) {
    const email = (user.email || emailOf(user.id) || "").toLowerCase();
    return email ? { id, type: "user", role, emailAddress: email } : null;
  }
  const group = identity.group ?? identity.siteGroup;
  if (group) {
    const email = (group.email ?? "").toLowerCase();
    return { id, type: "group", role, ...(email ? { emailAddress: email } : {}) };
  }
  return null;
}

/**
 * One Graph permission can be a sharing link or a direct grant to several identities. Anonymous
 * links are public; organization links reach everyone in the tenant; "specific people" links and
 * direct grants name their users.
 */
export function mapMsPermission(
  permission: TMsPermission,
  domain: string,
  emailOf: TEmailLookup,
): TPermission[] {
  const id = permission.id;
  if (!id) return [];
  const role = roleOf(permission);
  if (permission.link?.scope === "anonymous") return [{ id, type: "anyone", role }];
  if (permission.link?.scope === "organization") return [{ id, type: "domain", role, domain }];
  const identities = permission.grantedToIdentitiesV2?.length
    ? permission.grantedToIdentitiesV2
    : permission.grantedToV2
      ? [permission.grantedToV2]
      : [];
  const mapped = identities
    .map((identity, i) =>
      identityPermission(identity, identities.length > 1 ? `${id}:${i}` : id, role, emailOf),
    )
    .filter((p): p is TPermission => p !== null);
  if (mapped.length === 0 && permission.invitation?.email) {
    return [{ id, type: "user", role, emailAddress: permission.invitation.email.toLowerCase() }];
  }
  return mapped;
}

/** Only SharePoint document libraries count as shared drives; OneDrives are their owner's personal drive. */
export const isLibrary = (drive: TMsDrive) => drive.driveType === "documentLibrary";

export function mapMsFile(
  item: TMsDriveItem,
  drive: TMsDrive,
  permissions: TPermission[],
  emailOf: TEmailLookup,
): TSourceFile {
  const owner = isLibrary(drive) ? item.createdBy?.user : (drive.owner?.user ?? item.createdBy?.user);
  return {
    id: item.id ?? "",
    name: item.name ?? "",
    mimeType: item.file?.mimeType ?? "application/octet-stream",
    ownerEmail: (owner?.email || emailOf(owner?.id) || "").toLowerCase(),
    driveId: isLibrary(drive) ? (drive.id ?? null) : null,
    permissions,
    modifiedAt: item.lastModifiedDateTime ?? EPOCH,
    sizeBytes: item.size ?? 0,
  };
}

export function mapMsLibrary(
  drive: TMsDrive,
  rootPermissions: TPermission[],
  fileCount: number,
): TSharedDrive {
  return {
    id: drive.id ?? "",
    name: drive.name ?? "",
    members: rootPermissions
      .filter((p) => p.emailAddress)
      .map((p) => ({ email: p.emailAddress ?? "", role: p.role === "owner" ? "organizer" : p.role })),
    // Graph exposes no per-library sharing restrictions; they live in tenant/site sharing settings.
    restrictions: { domainUsersOnly: false, driveMembersOnly: false, copyRequiresWriterPermission: false },
    fileCount,
  };
}

export function mapMsGrant(
  grant: TMsPermissionGrant,
  app: TMsServicePrincipal | undefined,
  grantee: { email: string; grantedAt: string },
): TAppGrant {
  const clientId = app?.appId ?? grant.clientId ?? "";
  const label = app?.displayName || clientId;
  const verified = app?.verifiedPublisher?.verifiedPublisherId;
  const firstParty = MICROSOFT_TENANT_IDS.has(app?.appOwnerOrganizationId ?? "");
  return {
    id: grant.id ?? `${grant.clientId}:${grant.principalId ?? "all"}`,
    clientId,
    label,
    kind: classifyApp({ clientId, label, isServiceAccount: app?.servicePrincipalType === "ManagedIdentity" }),
    publisher:
      app?.verifiedPublisher?.displayName ||
      app?.publisherName ||
      (firstParty ? "Microsoft" : "Unknown publisher"),
    isKnownPublisher: Boolean(verified) || firstParty,
    scopes: (grant.scope ?? "").split(" ").filter(Boolean),
    userEmail: grantee.email,
    grantedAt: grantee.grantedAt,
  };
}

/** Successful interactive and non-interactive sign-ins become login events; failures are not logins. */
export function mapSignIn(signIn: TMsSignIn): TActivityEvent | null {
  if (!signIn.id || !signIn.createdDateTime || !signIn.userPrincipalName) return null;
  if ((signIn.status?.errorCode ?? 0) !== 0) return null;
  return {
    id: signIn.id,
    at: signIn.createdDateTime,
    actorEmail: signIn.userPrincipalName.toLowerCase(),
    type: "login",
    ...(signIn.appDisplayName ? { target: signIn.appDisplayName } : {}),
  };
}

/**
 * One app's application permissions on an API (app-only access: no signed-in user, every mailbox
 * or site the role allows). Role ids are resolved to their names (`Files.Read.All`); the app acts
 * as itself, so it is a service account unless its name says it is an AI agent.
 */
export function mapMsAppRoleGrant(
  app: TMsServicePrincipal | undefined,
  assignments: { principalId: string; resourceId: string; roles: string[]; grantedAt: string },
): TAppGrant {
  const clientId = app?.appId ?? assignments.principalId;
  const label = app?.displayName || clientId;
  const verified = app?.verifiedPublisher?.verifiedPublisherId;
  const firstParty = MICROSOFT_TENANT_IDS.has(app?.appOwnerOrganizationId ?? "");
  const kind = classifyApp({ clientId, label });
  return {
    id: `approle:${assignments.principalId}:${assignments.resourceId}`,
    clientId,
    label,
    kind: kind === "ai_agent" ? kind : "service_account",
    publisher:
      app?.verifiedPublisher?.displayName ||
      app?.publisherName ||
      (firstParty ? "Microsoft" : "Unknown publisher"),
    isKnownPublisher: Boolean(verified) || firstParty,
    scopes: [...assignments.roles].sort(),
    userEmail: "",
    grantedAt: assignments.grantedAt,
  };
}
