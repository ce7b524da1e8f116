import type { TAccessCheck, TAccessRequirement } from "../types";
import { MANAGEMENT_ACTIVITY_ACCESS } from "./management-activity";
import { MICROSOFT_SETTINGS_ACCESS } from "./settings";

/** The licence Graph asks for before it serves sign-in data and authentication-method reports. */
export const ENTRA_PREMIUM = "Microsoft Entra ID P1 or P2";

/** Service plans (`subscribedSkus[].servicePlans[].servicePlanName`) that carry Entra ID P1 or P2. */
export const ENTRA_PREMIUM_SERVICE_PLANS: readonly string[] = ["AAD_PREMIUM", "AAD_PREMIUM_P2"];

/** The connector's features, as its access list and coverage gaps name them. */
export const MS_FEATURE = {
  users: "Users",
  mfa: "MFA registration",
  lastLogin: "Last sign-in",
  files: "Files and sharing",
  incrementalFiles: "Incremental file scans",
  appPermissions: "App grants: application permissions",
  delegatedGrants: "App grants: delegated consents",
  labels: "Sensitivity labels",
  signIns: "Sign-in activity",
  licences: "Licence check",
  agentIdentities: "Agents: Entra agent identities",
  agentBlueprints: "Agents: agent blueprints",
  copilotAgents: "Agents: Copilot admin catalog",
  assistants: "AI assistant licences",
  groups: "Directory groups and their sizes",
} as const;

/** Every Microsoft Graph application permission (and licence) the connector's own reads need. */
export const MICROSOFT_GRAPH_ACCESS: readonly TAccessRequirement[] = [
  {
    feature: MS_FEATURE.users,
    permission: "User.Read.All",
    impact: "Nothing is scanned: users, the tenant's domains and file owners come from the directory.",
  },
  {
    feature: MS_FEATURE.mfa,
    permission: "AuditLog.Read.All",
    licence: ENTRA_PREMIUM,
    impact: "MFA registration and admin flags are unknown: the MFA rules skip every user.",
  },
  {
    feature: MS_FEATURE.lastLogin,
    permission: "AuditLog.Read.All",
    licence: ENTRA_PREMIUM,
    impact: "Last sign-in (signInActivity) is unknown: the dormant-account rule skips every user.",
  },
  {
    feature: MS_FEATURE.files,
    permission: "Sites.Read.All",
    impact: "No OneDrive, SharePoint library, file or sharing link is read.",
  },
  {
    feature: MS_FEATURE.appPermissions,
    permission: "Application.Read.All",
    impact: "Apps holding application permissions (app-only access to every mailbox or site) are not read.",
  },
  {
    feature: MS_FEATURE.delegatedGrants,
    permission: "Directory.Read.All",
    impact: "Delegated consents (oauth2PermissionGrants: what users let apps do for them) are not read.",
  },
  {
    feature: MS_FEATURE.labels,
    permission: "SensitivityLabel.Read",
    impact: "Sensitivity label names are unknown: every file's label is null.",
  },
  {
    feature: MS_FEATURE.signIns,
    permission: "AuditLog.Read.All",
    licence: ENTRA_PREMIUM,
    impact: "No sign-in is read: login anomalies cannot be detected.",
  },
  {
    feature: MS_FEATURE.licences,
    permission: "Organization.Read.All",
    impact: "The tenant's licences (Entra ID P1/P2) cannot be checked on connect.",
  },
  {
    feature: MS_FEATURE.agentIdentities,
    permission: "AgentIdentity.Read.All",
    impact: "Entra agent identities are not read: apps are agents only by the maintained publisher catalog.",
  },
  {
    feature: MS_FEATURE.agentBlueprints,
    permission: "AgentIdentityBlueprintPrincipal.Read.All",
    impact:
      "Agent blueprints' service principals are not read: an agent acting as its blueprint is an agent only by the publisher catalog.",
  },
  {
    feature: MS_FEATURE.copilotAgents,
    permission: "CopilotPackages.Read.All",
    impact:
      "The Copilot admin catalog is not read (it also needs a Microsoft Agent 365 licence): Copilot agents without an app grant are not listed.",
  },
  {
    feature: MS_FEATURE.assistants,
    permission: "Organization.Read.All",
    impact: "Who holds Microsoft 365 Copilot (subscribedSkus) is unknown: no user counts as a Copilot user.",
  },
  {
    feature: MS_FEATURE.groups,
    permission: "GroupMember.Read.All",
    impact:
      "Groups and their sizes (transitiveMembers/$count) are not read: a grant to a group names no address, counts one person in a file's reach, and no grant to a very large group becomes a broad-group finding.",
  },
];

/**
 * Not a read of its own: Graph's drive delta, read with Sites.Read.All, reports permission-only
 * changes completely only to an app that also holds Sites.FullControl.All (driveItem: delta,
 * "Scanning permissions hierarchies"). Without it the change feed is not used (change-feed.ts).
 */
export const INCREMENTAL_FILES_ACCESS: TAccessRequirement = {
  feature: MS_FEATURE.incrementalFiles,
  permission: "Sites.FullControl.All",
  impact:
    "Every scan reads every file: Graph's drive delta reports permission-only changes (a sharing link added or removed) only to an app holding this permission.",
};

/**
 * Every application permission (and licence) the Microsoft 365 connector's features need: its
 * Graph reads, the tenant settings' reads, and (spread in here) the Office 365 Management API's.
 */
export const MICROSOFT_ACCESS: readonly TAccessRequirement[] = [
  ...MICROSOFT_GRAPH_ACCESS,
  INCREMENTAL_FILES_ACCESS,
  MANAGEMENT_ACTIVITY_ACCESS,
  ...MICROSOFT_SETTINGS_ACCESS,
];

/**
 * Other permissions that serve the same paths (graph-permissions.json lists them on every path the
 * feature reads, mostly the "higher privileged" ones): an admin who granted one of these is not
 * told the listed one is missing.
 */
export const BROADER_PERMISSIONS: Readonly<Record<string, readonly string[]>> = {
  "User.Read.All": ["Directory.Read.All", "Directory.ReadWrite.All"],
  "Sites.Read.All": ["Sites.ReadWrite.All"],
  "Application.Read.All": ["Application.ReadWrite.All", "Directory.Read.All"],
  "Directory.Read.All": ["Directory.ReadWrite.All"],
  "Organization.Read.All": [
    "Organization.ReadWrite.All",
    "LicenseAssignment.Read.All",
    "Directory.Read.All",
    "Directory.ReadWrite.All",
  ],
  "SensitivityLabel.Read": ["SensitivityLabels.Read.All"],
  "AgentIdentity.Read.All": ["AgentIdentity.ReadWrite.All"],
  "AgentIdentityBlueprintPrincipal.Read.All": ["AgentIdentityBlueprintPrincipal.ReadWrite.All"],
  "CopilotPackages.Read.All": ["CopilotPackages.ReadWrite.All"],
  // Listed by graph-permissions.json on both GET /groups and GET /groups/{id}/transitiveMembers.
  "GroupMember.Read.All": ["Group.Read.All", "Group.ReadWrite.All", "Directory.Read.All"],
  // Remediation's writes (MICROSOFT_WRITE_ACCESS).
  "Files.ReadWrite.All": ["Sites.ReadWrite.All"],
  "DelegatedPermissionGrant.ReadWrite.All": ["Directory.ReadWrite.All"],
  "AppRoleAssignment.ReadWrite.All": ["Application.ReadWrite.All"],
};

export function permissionGranted(permission: string, roles: ReadonlySet<string>): boolean {
  return roles.has(permission) || (BROADER_PERMISSIONS[permission] ?? []).some((p) => roles.has(p));
}

/** Application permissions of the Office 365 Management Activity API: their roles are on its own token. */
export const MANAGEMENT_API_PERMISSIONS: ReadonlySet<string> = new Set([
  "ActivityFeed.Read",
  "ActivityFeed.ReadDlp",
  "ServiceHealth.Read",
]);

/** The `roles` claim of an app-only access token (its JWT payload; the signature is the API's business). */
export function tokenRoles(accessToken: string): string[] {
  const payload = accessToken.split(".")[1];
  if (!payload) return [];
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const roles = (claims as { roles?: unknown }).roles;
    return Array.isArray(roles) ? roles.filter((r): r is string => typeof r === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Each requirement marked granted or not: the permission against the token's roles (per API),
 * the licence against the tenant's service plans when they could be read (`null`: not readable).
 */
export function evaluateAccess(
  requirements: readonly TAccessRequirement[],
  rolesOf: (permission: string) => ReadonlySet<string> | string,
  licences: { premium: boolean } | string,
): TAccessCheck[] {
  return requirements.map((requirement) => {
    const roles = rolesOf(requirement.permission);
    if (typeof roles === "string") return { ...requirement, granted: false, detail: roles };
    if (!permissionGranted(requirement.permission, roles)) {
      return {
        ...requirement,
        granted: false,
        detail: `Application permission ${requirement.permission} is not granted (admin consent missing).`,
      };
    }
    if (requirement.licence !== ENTRA_PREMIUM) return { ...requirement, granted: true };
    if (typeof licences === "string") return { ...requirement, granted: true, detail: licences };
    return licences.premium
      ? { ...requirement, granted: true }
      : {
          ...requirement,
          granted: false,
          detail: `The tenant has no ${ENTRA_PREMIUM} subscription (service plan ${ENTRA_PREMIUM_SERVICE_PLANS.join(" or ")}).`,
        };
  });
}

/** Remediation's features, as the writer's access list names them. */
export const MS_WRITE_FEATURE = {
  fileSharing: "Remediation: file sharing",
  appConsent: "Remediation: app consent",
  appPermissions: "Remediation: app permissions",
} as const;

/**
 * The application permissions remediation's writes need (microsoft/write.ts), beyond the reads of
 * MICROSOFT_ACCESS: each is the least privileged one graph-permissions.json lists for the calls.
 * Not part of MICROSOFT_ACCESS: a read-only connector is complete without them.
 */
export const MICROSOFT_WRITE_ACCESS: TAccessRequirement[] = [
  {
    feature: MS_WRITE_FEATURE.fileSharing,
    permission: "Files.ReadWrite.All",
    impact:
      "Sharing cannot be fixed at the source: no link or permission is deleted or downgraded, and no undo re-invites anyone.",
  },
  {
    feature: MS_WRITE_FEATURE.appConsent,
    permission: "DelegatedPermissionGrant.ReadWrite.All",
    impact: "Delegated consents (oauth2PermissionGrants) cannot be revoked or granted back on undo.",
  },
  {
    feature: MS_WRITE_FEATURE.appPermissions,
    permission: "AppRoleAssignment.ReadWrite.All",
    impact: "Application permissions (app role assignments) cannot be revoked or granted back on undo.",
  },
];

/**
 * Broader permissions graph-permissions.json accepts on the same write paths (also in
 * BROADER_PERMISSIONS, so evaluateAccess over MICROSOFT_WRITE_ACCESS counts them as granted).
 */
export const BROADER_WRITE_PERMISSIONS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  MICROSOFT_WRITE_ACCESS.map((r) => [r.permission, BROADER_PERMISSIONS[r.permission] ?? []]),
);
