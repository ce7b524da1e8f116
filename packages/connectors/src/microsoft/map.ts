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
  type TMsCopilotPackage,
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

/**
 * What the user scan could read beyond the directory: registration details (MFA, admin) need
 * AuditLog.Read.All and Entra ID P1/P2, signInActivity needs both too. A value not read is marked
 * `unknown` so the identity rules skip it instead of flagging every user.
 */
export type TUserReadCoverage = { mfa: boolean; lastLogin: boolean };

export function mapMsUser(
  user: TMsUser,
  registration: TMsRegistrationDetails | undefined,
  coverage: TUserReadCoverage = { mfa: true, lastLogin: true },
): TSourceUser {
  const email = userEmail(user);
  const unknown: NonNullable<TSourceUser["unknown"]> = [
    ...(coverage.mfa ? [] : (["mfa"] as const)),
    ...(coverage.lastLogin ? [] : (["lastLogin"] as const)),
  ];
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
    ...(unknown.length > 0 ? { unknown } : {}),
  };
}

function roleOf(permission: TMsPermission): TPermissionRole {
  const roles = permission.roles ?? [];
  if (roles.includes("owner")) return "owner";
  if (roles.includes("write") || permission.link?.type === "edit") return "writer";
  if (permission.link?.type === "review") return "commenter";
  return "reader";
}

/**
 * The directory as sharing needs it: an Entra object id or a user principal name → the user's
 * email. SharePoint's own numeric ids are never looked up here.
 */
export type TDirectory = {
  byId: TEmailLookup;
  byLogin: (upn: string) => string | undefined;
  /** A mail-enabled group's address by its Entra object id (GET /groups); absent: groups not read. */
  groupById?: (id: string) => string | undefined;
};

// SharePoint's claims for an Entra group: a Microsoft 365 group's members
// (`c:0o.c|federateddirectoryclaimprovider|<id>`; `<id>_o` is its owners only, not the group) and a
// security group (`c:0t.c|tenant|<id>`).
const GROUP_CLAIM = /^c:0(?:o\.c\|federateddirectoryclaimprovider|t\.c\|tenant)\|([0-9a-f-]{36})$/i;

/** The Entra group a grant names: `group.id`, or a group claim SharePoint put on a site principal. */
function groupIdOf(identity: TMsIdentitySet): string | undefined {
  if (identity.group?.id) return identity.group.id;
  for (const carrier of [identity.siteGroup, identity.siteUser, identity.user]) {
    const id = GROUP_CLAIM.exec(carrier?.loginName ?? "")?.[1];
    if (id) return id.toLowerCase();
  }
  return undefined;
}

// SharePoint claims: a member or B2B guest (`i:0#.f|membership|<upn>`), an external user who never
// joined the directory (`…|urn:spo:guest#<email>`), and the "everyone" claims.
const MEMBERSHIP_CLAIM = /^i:0#\.f\|membership\|(.+)$/i;
const SPO_GUEST = /^urn(?::|%3a)spo(?::|%3a)guest#(.+)$/i;
// "Everyone" (`c:0(.s|true`, guests included) and "Everyone except external users"
// (`c:0-.f|rolemanager|spo-grid-all-users/<tenant id>`, the tenant's members only).
const EVERYONE_CLAIMS: Array<[RegExp, NonNullable<TPermission["everyone"]>]> = [
  [/^c:0\(\.s\|true$/i, "all"],
  [/^c:0-\.f\|rolemanager\|spo-grid-all-users\//i, "members"],
];

/** A B2B guest's UPN encodes their address: `alex_partner.example#EXT#@contoso.onmicrosoft.com`. */
function guestAddress(upn: string): string | undefined {
  const match = /^(.+)#ext#@/i.exec(upn);
  const local = match?.[1];
  if (!local) return undefined;
  const at = local.lastIndexOf("_");
  return at > 0 ? `${local.slice(0, at)}@${local.slice(at + 1)}` : undefined;
}

/** The email behind a SharePoint claims login name, through the directory when the user is in it. */
export function loginEmail(loginName: string | undefined, directory: TDirectory): string | undefined {
  const claim = MEMBERSHIP_CLAIM.exec(loginName ?? "")?.[1];
  if (!claim) return undefined;
  const external = SPO_GUEST.exec(claim)?.[1];
  if (external) return external.toLowerCase();
  const upn = claim.toLowerCase();
  return directory.byLogin(upn) ?? guestAddress(upn) ?? (upn.includes("@") ? upn : undefined);
}

/** Which everyone claim a login name is, or null when it names someone. */
export function everyoneClaim(loginName: string | undefined): TPermission["everyone"] | null {
  if (!loginName) return null;
  for (const [claim, everyone] of EVERYONE_CLAIMS) if (claim.test(loginName)) return everyone;
  return null;
}

function identityPermission(
  identity: TMsIdentitySet,
  id: string,
  role: TPermissionRole,
  domain: string,
  directory: TDirectory,
): TPermission | null {
  // Everyone / Everyone except external users reach the whole tenant, whichever identity carries
  // the claim (SharePoint shows it as a site user, a site group or a user).
  for (const carrier of [identity.siteUser, identity.siteGroup, identity.user]) {
    const everyone = everyoneClaim(carrier?.loginName);
    if (everyone) return { id, type: "domain", role, domain, everyone };
  }
  // A grant to an Entra group carries no address (`identity` declares only id and displayName):
  // the group's mail, from the directory's groups, is what reach and the broad-group rule key on.
  const groupId = groupIdOf(identity);
  if (groupId) {
    const email = directory.groupById?.(groupId);
    return { id, type: "group", role, ...(email ? { emailAddress: email } : {}) };
  }
  // `user` is an Entra identity: its id is the object id. `siteUser` is SharePoint's: resolve its
  // login name, never its id (a number local to the site collection).
  if (identity.user) {
    const email = directory.byId(identity.user.id) ?? loginEmail(identity.siteUser?.loginName, directory);
    return email ? { id, type: "user", role, emailAddress: email } : null;
  }
  if (identity.siteUser) {
    const email = loginEmail(identity.siteUser.loginName, directory);
    return email ? { id, type: "user", role, emailAddress: email } : null;
  }
  if (identity.group || identity.siteGroup) return { id, type: "group", role };
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
  directory: TDirectory,
): TPermission[] {
  const id = permission.id;
  if (!id) return [];
  const role = roleOf(permission);
  // Microsoft links are never found by search: only those holding the URL open them.
  const link = { expiresAt: isoOrNull(permission.expirationDateTime), discoverable: false };
  if (permission.link?.scope === "anonymous") return [{ id, type: "anyone", role, link }];
  if (permission.link?.scope === "organization") return [{ id, type: "domain", role, domain, link }];
  const identities = permission.grantedToIdentitiesV2?.length
    ? permission.grantedToIdentitiesV2
    : permission.grantedToV2
      ? [permission.grantedToV2]
      : [];
  const mapped = identities
    .map((identity, i) =>
      identityPermission(identity, identities.length > 1 ? `${id}:${i}` : id, role, domain, directory),
    )
    .filter((p): p is TPermission => p !== null);
  if (mapped.length === 0 && permission.invitation?.email) {
    return [{ id, type: "user", role, emailAddress: permission.invitation.email.toLowerCase() }];
  }
  return mapped;
}

function isoOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/** Only SharePoint document libraries count as shared drives; OneDrives are their owner's personal drive. */
export const isLibrary = (drive: TMsDrive) => drive.driveType === "documentLibrary";

export function mapMsFile(
  item: TMsDriveItem,
  drive: TMsDrive,
  permissions: TPermission[],
  emailOf: TEmailLookup,
  label: string | null = null,
): TSourceFile {
  const owner = isLibrary(drive) ? item.createdBy?.user : (drive.owner?.user ?? item.createdBy?.user);
  return {
    id: item.id ?? "",
    name: item.name ?? "",
    mimeType: item.file?.mimeType ?? "application/octet-stream",
    ownerEmail: (emailOf(owner?.id) ?? "").toLowerCase(),
    driveId: isLibrary(drive) ? (drive.id ?? null) : null,
    permissions,
    modifiedAt: item.lastModifiedDateTime ?? EPOCH,
    sizeBytes: item.size ?? 0,
    label,
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

export const OWN_TENANT_PUBLISHER = "This organization";
export const UNKNOWN_PUBLISHER = "Unknown publisher";

/**
 * The publisher from what v1.0 declares (`publisherName` is beta only): a verified publisher's
 * name, Microsoft for its own tenants' apps, this organization for apps registered in the tenant.
 */
export function msPublisher(
  app: TMsServicePrincipal | undefined,
  tenantId: string | undefined,
): { publisher: string; isKnownPublisher: boolean } {
  const verified = app?.verifiedPublisher?.verifiedPublisherId;
  const owner = app?.appOwnerOrganizationId ?? "";
  const firstParty = MICROSOFT_TENANT_IDS.has(owner);
  const publisher =
    (verified ? app?.verifiedPublisher?.displayName : undefined) ||
    (firstParty ? "Microsoft" : tenantId && owner === tenantId ? OWN_TENANT_PUBLISHER : UNKNOWN_PUBLISHER);
  return { publisher, isKnownPublisher: Boolean(verified) || firstParty };
}

/** Where the tenant's own registries list an app as an agent (agent identities, the Copilot catalog). */
export type TMsAgentRegistry = (app: TMsServicePrincipal) => TAppGrant["agentSource"] | undefined;

/** An app's kind from Graph's facts: its registry entry, the catalog (by ids and verified publisher), its type. */
export function msAppKind(
  app: TMsServicePrincipal | undefined,
  clientId: string,
  label: string,
  registry?: TMsAgentRegistry,
  servicePrincipalId?: string,
) {
  // Without Application.Read.All the app is unread: its object id still finds it in the registry.
  const listed = registry?.(app ?? { id: servicePrincipalId });
  return classifyApp({
    platform: "microsoft_365",
    clientId,
    appId: app?.appId,
    label,
    verifiedPublisherId: app?.verifiedPublisher?.verifiedPublisherId ?? undefined,
    verifiedPublisherName: app?.verifiedPublisher?.displayName ?? undefined,
    appOwnerOrganizationId: app?.appOwnerOrganizationId ?? undefined,
    isServiceAccount: app?.servicePrincipalType === "ManagedIdentity",
    ...(listed === "agent_registry" || listed === "copilot_catalog" ? { registry: listed } : {}),
  });
}

export function mapMsGrant(
  grant: TMsPermissionGrant,
  app: TMsServicePrincipal | undefined,
  grantee: { email: string; grantedAt: string },
  tenantId?: string,
  registry?: TMsAgentRegistry,
): TAppGrant {
  const clientId = app?.appId ?? grant.clientId ?? "";
  const label = app?.displayName || clientId;
  return {
    id: grant.id ?? `${grant.clientId}:${grant.principalId ?? "all"}`,
    clientId,
    label,
    ...msAppKind(app, clientId, label, registry, grant.clientId),
    // oauth2PermissionGrants are delegated permissions: the app acts as the signed-in user.
    access: "delegated",
    ...msPublisher(app, tenantId),
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
 * as itself (`access: "application"`), so it is a service account unless a registry or the
 * catalog says it is an AI agent.
 */
export function mapMsAppRoleGrant(
  app: TMsServicePrincipal | undefined,
  assignments: { principalId: string; resourceId: string; roles: string[]; grantedAt: string },
  tenantId?: string,
  registry?: TMsAgentRegistry,
): TAppGrant {
  const clientId = app?.appId ?? assignments.principalId;
  const label = app?.displayName || clientId;
  const kind = msAppKind(app, clientId, label, registry, assignments.principalId);
  return {
    id: `approle:${assignments.principalId}:${assignments.resourceId}`,
    clientId,
    label,
    ...(kind.kind === "ai_agent" ? kind : { kind: "service_account" as const }),
    access: "application",
    ...msPublisher(app, tenantId),
    scopes: [...assignments.roles].sort(),
    userEmail: "",
    grantedAt: assignments.grantedAt,
  };
}

/** What a Copilot package's `elementTypes` name when it is an agent (packageElementDetail's documentation). */
export const COPILOT_AGENT_ELEMENT_TYPES: readonly string[] = ["DeclarativeAgent", "CustomEngineCopilot"];

export const isCopilotAgentPackage = (pkg: TMsCopilotPackage): boolean =>
  (pkg.elementTypes ?? []).some((t) =>
    COPILOT_AGENT_ELEMENT_TYPES.some((a) => a.toLowerCase() === t.toLowerCase()),
  );

/**
 * A Copilot agent of the admin catalog that holds no app grant of its own: it runs in Microsoft 365
 * Copilot as the user who asks (delegated), reaching what that user can open. Microsoft's own
 * packages and the tenant's (`custom`, `shared`) have a known publisher; `external` ones are the
 * store's.
 */
export function mapCopilotPackage(pkg: TMsCopilotPackage, tenantCreatedAt: string): TAppGrant {
  const clientId = pkg.appId || pkg.id || "";
  const label = pkg.displayName || clientId;
  return {
    id: `copilot:${pkg.id ?? clientId}`,
    clientId,
    label,
    kind: "ai_agent",
    agentSource: "copilot_catalog",
    access: "delegated",
    publisher: pkg.publisher || (pkg.type === "microsoft" ? "Microsoft" : UNKNOWN_PUBLISHER),
    isKnownPublisher: pkg.type === "microsoft" || pkg.type === "custom" || pkg.type === "shared",
    scopes: [],
    userEmail: "",
    grantedAt: pkg.createdDateTime || tenantCreatedAt,
  };
}
