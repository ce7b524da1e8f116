// What the GitHub adapter reads, typed after GitHub's own objects (the product's source
// interface, `../types.ts`, is about files and drives; docs/sources/github.md says how each of
// these maps onto it: a public repository is a public link, an outside collaborator an outside
// share, an app installation an agent, a Copilot seat an assistant).

export type TGithubOrganization = { id: string; login: string; name: string | null; htmlUrl: string };

/** A member's organization role (`role=admin`: an owner). `mfaEnabled` null: the 2FA filter was refused. */
export type TGithubMember = {
  id: string;
  login: string;
  role: "owner" | "member";
  mfaEnabled: boolean | null;
};

export type TGithubOutsideCollaborator = { id: string; login: string; mfaEnabled: boolean | null };

/** A repository role, highest first, as `role_name` names the built-in ones (custom roles pass through). */
export type TGithubRepoRole = "admin" | "maintain" | "write" | "triage" | "read" | (string & {});

export type TGithubCollaborator = { id: string; login: string; role: TGithubRepoRole };

export type TGithubDeployKey = {
  id: string;
  title: string;
  /** False: the key can push. */
  readOnly: boolean;
  createdAt: string;
  lastUsedAt: string | null;
};

export type TGithubRepository = {
  id: string;
  name: string;
  fullName: string;
  visibility: "public" | "private" | "internal";
  fork: boolean;
  archived: boolean;
  htmlUrl: string;
  createdAt: string | null;
  pushedAt: string | null;
  /** Its outside collaborators (direct grants to people outside the organization), with their role. */
  outsideCollaborators: TGithubCollaborator[];
  /** Its deploy keys; null when they could not be read (no Administration: read, see the gaps). */
  deployKeys: TGithubDeployKey[] | null;
};

export type TGithubTeam = {
  id: string;
  slug: string;
  name: string;
  privacy: "closed" | "secret" | null;
  /** The team's default repository permission. */
  permission: string;
  parentSlug: string | null;
};

/** A GitHub App installed on the organization: its permissions and events are its scopes. */
export type TGithubInstallation = {
  id: string;
  appId: string;
  appSlug: string;
  clientId: string | null;
  permissions: Record<string, string>;
  events: string[];
  repositorySelection: "all" | "selected";
  createdAt: string;
  suspendedAt: string | null;
};

export type TGithubCopilotSeat = {
  login: string;
  userId: string;
  planType: string | null;
  createdAt: string;
  lastActivityAt: string | null;
  pendingCancellationDate: string | null;
};
