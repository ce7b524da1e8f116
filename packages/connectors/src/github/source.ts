import type {
  TAppGrant,
  TPermission,
  TPermissionRole,
  TSourceAdapter,
  TSourceFile,
  TSourceUser,
} from "../types";
import type { TGithubAdapter } from "./adapter";
import type { TGithubInstallation, TGithubMember, TGithubRepoRole, TGithubRepository } from "./types";

// A GitHub organization read as the product's source model (docs/sources/github.md, decisions
// "GitHub onto the source model"): a repository is a resource the store keeps as a file (its
// mimeType says it is a repository), its visibility and outside collaborators are permissions
// (public = a public link, internal = everyone in the enterprise, an outside collaborator = a
// grant to a person outside), members are users, app installations are app grants with
// application access, Copilot seats are assistants. The demo organization (demo.ts) and the real
// adapter (adapter.ts) are both mapped here, so the scan cannot tell them apart.

/** The mimeType a repository is stored under; inventory `type=repositories` lists these. */
export const GITHUB_REPOSITORY_MIME = "application/vnd.github.repository";

/** Outside collaborators are addressed at GitHub's own user domain: never one of the organization's. */
export const GITHUB_OUTSIDE_DOMAIN = "users.noreply.github.com";

/** The organization's own (internal) domain: its members' addresses are `<login>@<org>.github`. */
export const githubOrgDomain = (org: string): string => `${org.toLowerCase()}.github`;

export const githubMemberEmail = (org: string, login: string): string =>
  `${login.toLowerCase()}@${githubOrgDomain(org)}`;
export const githubOutsideEmail = (login: string): string =>
  `${login.toLowerCase()}@${GITHUB_OUTSIDE_DOMAIN}`;

/** Who owns every repository: the organization itself (its owners' role). */
export const githubOwnerEmail = (org: string): string => `owners@${githubOrgDomain(org)}`;

/** The permission id of a repository's visibility (a login cannot contain `~`). */
export const VISIBILITY_PERMISSION_ID = "~visibility";

/**
 * Repository roles onto the product's permission roles (custom roles count as `read`). The
 * product's `owner` is a file's owner, never a grant (the store does not keep it as a share), so a
 * repository admin is an `organizer` (can manage access) and `maintain` a `writer`; the writers
 * keep GitHub's own role in a permission's pre-image (`extra.githubRole`) so undo is exact.
 */
const ROLE_OF: Record<string, TPermissionRole> = {
  admin: "organizer",
  maintain: "writer",
  write: "writer",
  triage: "commenter",
  read: "reader",
};
export const githubRoleOf = (role: TGithubRepoRole): TPermissionRole => ROLE_OF[role] ?? "reader";

/** The product's roles back to GitHub's `permission` body values (PUT …/collaborators/{username}). */
export const GITHUB_PERMISSION_OF: Record<TPermissionRole, string> = {
  owner: "admin",
  organizer: "admin",
  writer: "push",
  commenter: "triage",
  reader: "pull",
};

/** Sets a repository's content signal: open secret scanning alerts make it highly sensitive. */
export const SECRET_ALERTS_LABEL = "Secret scanning alerts open";

export function repositoryFile(
  org: string,
  repo: TGithubRepository,
  signals: { secretAlerts?: number } = {},
): TSourceFile {
  const permissions: TPermission[] = [];
  if (repo.visibility === "public")
    permissions.push({ id: VISIBILITY_PERMISSION_ID, type: "anyone", role: "reader" });
  else if (repo.visibility === "internal")
    permissions.push({
      id: VISIBILITY_PERMISSION_ID,
      type: "domain",
      role: "reader",
      domain: githubOrgDomain(org),
      // Every member of the organization (and its enterprise) can read it: a grant to everyone.
      everyone: "members",
    });
  for (const c of repo.outsideCollaborators)
    permissions.push({
      id: c.login.toLowerCase(),
      type: "user",
      role: githubRoleOf(c.role),
      emailAddress: githubOutsideEmail(c.login),
    });
  return {
    id: repo.fullName,
    name: repo.fullName,
    mimeType: GITHUB_REPOSITORY_MIME,
    ownerEmail: githubOwnerEmail(org),
    driveId: null,
    permissions,
    modifiedAt: repo.pushedAt ?? repo.createdAt ?? "1970-01-01T00:00:00.000Z",
    sizeBytes: 0,
    label: (signals.secretAlerts ?? 0) > 0 ? SECRET_ALERTS_LABEL : null,
    repository: {
      visibility: repo.visibility,
      fork: repo.fork,
      archived: repo.archived,
      deployKeys: repo.deployKeys?.map((k) => ({ id: k.id, title: k.title, readOnly: k.readOnly })) ?? null,
    },
  };
}

export function memberUser(
  org: string,
  member: TGithubMember,
  createdAt: string,
  copilot: ReadonlySet<string>,
): TSourceUser {
  return {
    id: member.id,
    email: githubMemberEmail(org, member.login),
    name: member.login,
    isAdmin: member.role === "owner",
    mfaEnabled: member.mfaEnabled ?? false,
    suspended: false,
    // GitHub's REST API says nothing of a member's last sign-in (only the audit log, Enterprise).
    lastLoginAt: null,
    createdAt,
    ...(copilot.has(member.login.toLowerCase()) ? { assistants: ["github_copilot" as const] } : {}),
    unknown: member.mfaEnabled === null ? ["mfa", "lastLogin"] : ["lastLogin"],
  };
}

/** An app installation as an app grant: its permissions (`contents:write`…) are its scopes. */
export function installationGrant(org: string, inst: TGithubInstallation): TAppGrant {
  return {
    id: `installation-${inst.id}`,
    clientId: inst.appSlug,
    label: inst.appSlug,
    kind: "oauth_app",
    publisher: inst.appSlug,
    isKnownPublisher: false,
    scopes: Object.entries(inst.permissions)
      .map(([name, level]) => `${name}:${level}`)
      .sort(),
    userEmail: githubOwnerEmail(org),
    grantedAt: inst.createdAt,
    // An installation acts as itself on every repository it is installed on.
    access: "application",
  };
}

/** What the mapping needs beyond the GitHub reads: the content signals a source could add. */
export type TGithubSourceExtras = {
  /** Open secret scanning alerts by repository full name (the demo's; real mode does not read them yet). */
  secretAlerts?: (fullName: string) => number;
  /** Laid over every repository read (the demo's sandbox writes). */
  mapFile?: (file: TSourceFile) => TSourceFile;
  /** When members joined, where known (GitHub does not list it): the organization's creation. */
  memberSince?: string;
};

/** The product's source adapter over a GitHub organization's reads. */
export function githubSourceAdapter(
  org: string,
  gh: TGithubAdapter,
  extras: TGithubSourceExtras = {},
): TSourceAdapter {
  const domain = githubOrgDomain(org);
  const since = extras.memberSince ?? "2020-01-01T00:00:00.000Z";
  return {
    workspace: async () => {
      await gh.organization();
      return { domain, internalDomains: [domain] };
    },
    users: async function* () {
      const copilot = new Set<string>();
      // A seat pending cancellation still works until its date: its user is still a Copilot user.
      for await (const seat of gh.copilotSeats()) copilot.add(seat.login.toLowerCase());
      for await (const member of gh.members()) yield memberUser(org, member, since, copilot);
    },
    files: async function* () {
      for await (const repo of gh.repositories()) {
        const file = repositoryFile(org, repo, { secretAlerts: extras.secretAlerts?.(repo.fullName) ?? 0 });
        yield extras.mapFile ? extras.mapFile(file) : file;
      }
    },
    sharedDrives: async function* () {},
    appGrants: async function* () {
      // A suspended installation can do nothing until an owner unsuspends it: not an agent now.
      for await (const inst of gh.installations())
        if (inst.suspendedAt === null) yield installationGrant(org, inst);
    },
    activity: async function* () {},
    tenantSettings: () => gh.tenantSettings(),
    checkAccess: () => gh.checkAccess(),
    coverageGaps: () => gh.coverageGaps(),
  };
}
