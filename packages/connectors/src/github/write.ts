import { reversibilityOf } from "../reversibility";
import type { TAccessRequirement, TPermissionRole } from "../types";
import {
  ranksAbove,
  SourceWriteError,
  type TPermissionImage,
  type TSourceWriter,
  type TWriteFile,
  type TWriteOutcome,
} from "../write";
import type { TGithubRequirement } from "./access";
import { githubAppTokens, type TGithubAppCredentials } from "./auth";
import { createGithubClient, GithubApiError, type TGithubHttpOptions } from "./http";
import { githubDeployKeyWrites } from "./write-deploy-keys";
import {
  GITHUB_PERMISSION_OF,
  githubOrgDomain,
  githubOutsideEmail,
  githubRoleOf,
  VISIBILITY_PERMISSION_ID,
} from "./source";

// Remediation's writes to a GitHub organization (issue 31), each one documented call of the REST
// API through the installation's token: an outside collaborator removed
// (DELETE /repos/{owner}/{repo}/collaborators/{username}), their role lowered or, on undo, put back
// (PUT …/collaborators/{username} {permission}: for someone who is no longer a collaborator GitHub
// sends an invitation, and access returns when they accept it; an undo first looks for the
// invitation an earlier, crashed try sent, GET …/invitations), a public or internal repository
// made private (PATCH /repos/{owner}/{repo} {visibility}), a deploy key deleted
// (DELETE /repos/{owner}/{repo}/keys/{key_id}; on undo its public key added back,
// POST …/keys {title, key, read_only}, under a new id). A repository's id at the source is its
// full name (`owner/repo`, source.ts). GitHub has no call with which an organization suspends or
// removes another app's installation, and no ownership transfer of a repository's files: both are
// refused as `unsupported`.

/** What remediation's writes need, with their operations (checked against the extract by access.test.ts). */
export const GITHUB_WRITE_REQUIREMENTS: readonly TGithubRequirement[] = [
  {
    feature: "Remediation: what a change will touch",
    permission: "metadata: read",
    needs: { metadata: "read" },
    operations: [
      "GET /repos/{owner}/{repo}",
      "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
    ],
    impact: "A change's pre-image (visibility, a collaborator's role) cannot be read: nothing is changed.",
  },
  {
    feature: "Remediation: invitations an undo already sent, deploy keys' pre-images",
    permission: "administration: read",
    needs: { administration: "read" },
    operations: ["GET /repos/{owner}/{repo}/invitations", "GET /repos/{owner}/{repo}/keys/{key_id}"],
    impact:
      "An undo cannot see the invitation an interrupted try already sent (the permission endpoint does not show pending invitations), and a deploy key's pre-image cannot be read: a removed collaborator is not invited back, no deploy key is deleted.",
  },
  {
    feature: "Remediation: outside collaborators and repository visibility",
    permission: "administration: write",
    needs: { administration: "write" },
    operations: [
      "PATCH /repos/{owner}/{repo}",
      "PUT /repos/{owner}/{repo}/collaborators/{username}",
      "DELETE /repos/{owner}/{repo}/collaborators/{username}",
      "PATCH /repos/{owner}/{repo}/invitations/{invitation_id}",
      "DELETE /repos/{owner}/{repo}/keys/{key_id}",
      "POST /repos/{owner}/{repo}/keys",
    ],
    impact:
      "Outside collaborators cannot be removed or lowered, repositories cannot be made private and deploy keys cannot be deleted, from a remediation.",
  },
];

export const GITHUB_WRITE_ACCESS: readonly TAccessRequirement[] = GITHUB_WRITE_REQUIREMENTS.map(
  ({ feature, permission, impact }) => ({ feature, permission, impact }),
);

export const GITHUB_UNSUPPORTED = {
  transfer: () =>
    new SourceWriteError(400, "unsupported", "A repository's content has no owner to transfer on GitHub"),
  installation: () =>
    new SourceWriteError(
      400,
      "unsupported",
      "GitHub has no API for an organization to suspend or remove another app's installation: an owner uninstalls it in Settings › GitHub Apps",
    ),
  visibilityRole: () =>
    new SourceWriteError(400, "unsupported", "A repository's visibility has no role to change"),
};

export const githubNotFound = () => new SourceWriteError(404, "not_found", "GitHub: Not Found (HTTP 404)");

/** GitHub answers role names (`write`, `read`) where its PUT body takes the older permission names. */
const GITHUB_ROLE_BODY: Record<string, string> = {
  read: "pull",
  triage: "triage",
  write: "push",
  maintain: "maintain",
  admin: "admin",
};
/** …and the other way: the role name an invitation's `permissions` carries for a PUT body value. */
const GITHUB_ROLE_NAME: Record<string, string> = Object.fromEntries(
  Object.entries(GITHUB_ROLE_BODY).map(([name, body]) => [body, name]),
);

const repoPath = (file: TWriteFile) => `/repos/${file.id.split("/").map(encodeURIComponent).join("/")}`;

const asWriteError = (error: unknown): unknown =>
  error instanceof GithubApiError ? new SourceWriteError(error.status, "github", error.message) : error;

export type TGithubWriterOptions = {
  org: string;
  credentials: TGithubAppCredentials;
  baseUrl?: string;
  http?: TGithubHttpOptions;
};

export function createGithubWriter(opts: TGithubWriterOptions): TSourceWriter {
  const tokens = githubAppTokens(opts.credentials, { baseUrl: opts.baseUrl, http: opts.http });
  const client = createGithubClient({ baseUrl: opts.baseUrl, tokens, http: opts.http });

  /** The collaborator's role on the repository now (the product's and GitHub's), or null when they have none. */
  const collaboratorAccess = async (
    file: TWriteFile,
    login: string,
  ): Promise<{ role: TPermissionRole; githubRole: string } | null> => {
    try {
      const body = await client.get<{ permission?: string; role_name?: string }>(
        `${repoPath(file)}/collaborators/${encodeURIComponent(login)}/permission`,
      );
      if (!body.permission || body.permission === "none") return null;
      const githubRole = body.role_name ?? body.permission;
      return { role: githubRoleOf(githubRole), githubRole };
    } catch (error) {
      if (error instanceof GithubApiError && error.status === 404) return null;
      throw asWriteError(error);
    }
  };

  const visibility = async (file: TWriteFile): Promise<string | null> => {
    try {
      return (await client.get<{ visibility?: string; private: boolean }>(repoPath(file))).visibility ?? null;
    } catch (error) {
      if (error instanceof GithubApiError && error.status === 404) return null;
      throw asWriteError(error);
    }
  };

  const collaboratorRole = async (file: TWriteFile, login: string) =>
    (await collaboratorAccess(file, login))?.role ?? null;

  /** `permission`: GitHub's role name (pull, triage, push, maintain, admin, or a custom role's). */
  const putCollaborator = async (file: TWriteFile, login: string, permission: string) => {
    try {
      await client.send("PUT", `${repoPath(file)}/collaborators/${encodeURIComponent(login)}`, {
        permission,
      });
    } catch (error) {
      throw asWriteError(error);
    }
  };

  /** The pending invitation of `login` to the repository, if any (an expired one grants nothing). */
  const pendingInvitation = async (
    file: TWriteFile,
    login: string,
  ): Promise<{ id: number; permissions: string } | null> => {
    try {
      for await (const invitation of client.list<{
        id: number;
        permissions: string;
        expired?: boolean;
        invitee: { login: string } | null;
      }>(`${repoPath(file)}/invitations`))
        if (invitation.invitee?.login.toLowerCase() === login.toLowerCase() && invitation.expired !== true)
          return { id: invitation.id, permissions: invitation.permissions };
      return null;
    } catch (error) {
      throw asWriteError(error);
    }
  };

  /**
   * Puts a collaborator back with GitHub's role `permission` (a PUT body value). Someone no longer
   * a collaborator is sent an invitation, which the permission endpoint does not show: an undo
   * retried after a crash finds the one it sent (at another role, that role is corrected) instead
   * of inviting them twice.
   */
  const restoreCollaborator = async (file: TWriteFile, login: string, permission: string) => {
    const pending = await pendingInvitation(file, login);
    const roleName = GITHUB_ROLE_NAME[permission];
    if (pending && pending.permissions === (roleName ?? permission)) return;
    // A custom role has no invitation value: the PUT is GitHub's only way to set it.
    if (!pending || roleName === undefined) return putCollaborator(file, login, permission);
    try {
      await client.send("PATCH", `${repoPath(file)}/invitations/${pending.id}`, { permissions: roleName });
    } catch (error) {
      throw asWriteError(error);
    }
  };

  const setVisibility = async (file: TWriteFile, to: string) => {
    try {
      await client.send("PATCH", repoPath(file), { visibility: to });
    } catch (error) {
      throw asWriteError(error);
    }
  };

  return {
    ...githubDeployKeyWrites({ client, repoPath, asWriteError }),
    requirements: () => [...GITHUB_WRITE_ACCESS],
    reversibility: (action, permission) => reversibilityOf("github", action, permission),
    readPermission: async (file, permissionId): Promise<TPermissionImage | null> => {
      if (permissionId === VISIBILITY_PERMISSION_ID) {
        const v = await visibility(file);
        if (v === "public") return { id: permissionId, type: "anyone", role: "reader" };
        if (v === "internal")
          return {
            id: permissionId,
            type: "domain",
            role: "reader",
            domain: githubOrgDomain(opts.org),
            everyone: "members",
          };
        return null;
      }
      const access = await collaboratorAccess(file, permissionId);
      return access === null
        ? null
        : {
            id: permissionId,
            type: "user",
            role: access.role,
            emailAddress: githubOutsideEmail(permissionId),
            extra: { githubRole: access.githubRole },
          };
    },
    deletePermission: async (file, permissionId): Promise<TWriteOutcome> => {
      if (permissionId === VISIBILITY_PERMISSION_ID) {
        const v = await visibility(file);
        if (v === null || v === "private") return "already_gone";
        await setVisibility(file, "private");
        return "applied";
      }
      if ((await collaboratorRole(file, permissionId)) === null) return "already_gone";
      try {
        await client.send("DELETE", `${repoPath(file)}/collaborators/${encodeURIComponent(permissionId)}`);
      } catch (error) {
        if (error instanceof GithubApiError && error.status === 404) return "already_gone";
        throw asWriteError(error);
      }
      return "applied";
    },
    updatePermissionRole: async (file, permissionId, role, how = "lower") => {
      if (permissionId === VISIBILITY_PERMISSION_ID) throw GITHUB_UNSUPPORTED.visibilityRole();
      const current = await collaboratorRole(file, permissionId);
      if (current === null) return "already_gone";
      if (how === "lower" ? !ranksAbove(current, role) : current === role) return "already_gone";
      await putCollaborator(file, permissionId, GITHUB_PERMISSION_OF[role]);
      return "applied";
    },
    restorePermission: async (file, image) => {
      if (image.id === VISIBILITY_PERMISSION_ID) {
        await setVisibility(file, image.type === "anyone" ? "public" : "internal");
        return { id: image.id };
      }
      // GitHub invites someone who is no longer a collaborator: their access returns on acceptance.
      const githubRole = image.extra?.githubRole;
      await restoreCollaborator(
        file,
        image.id,
        typeof githubRole === "string"
          ? (GITHUB_ROLE_BODY[githubRole] ?? githubRole)
          : GITHUB_PERMISSION_OF[image.role],
      );
      return { id: image.id };
    },
    transferOwnership: async () => {
      throw GITHUB_UNSUPPORTED.transfer();
    },
    readGrant: async () => {
      throw GITHUB_UNSUPPORTED.installation();
    },
    revokeGrant: async () => {
      throw GITHUB_UNSUPPORTED.installation();
    },
  };
}
