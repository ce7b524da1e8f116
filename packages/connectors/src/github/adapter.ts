import {
  type TAccessCheck,
  type TCoverageGap,
  type TSettingValue,
  type TTenantSetting,
  SourceAuthError,
} from "../types";
import { checkGithubAccess, GITHUB_FEATURE } from "./access";
import { githubAppTokens, type TGithubAppCredentials } from "./auth";
import { createGithubClient, GithubApiError, type TGithubHttpOptions } from "./http";
import {
  type TGithubCollaborator,
  type TGithubCopilotSeat,
  type TGithubDeployKey,
  type TGithubInstallation,
  type TGithubMember,
  type TGithubOrganization,
  type TGithubOutsideCollaborator,
  type TGithubRepository,
  type TGithubTeam,
} from "./types";

// The GitHub read adapter: one organization, read through a GitHub App installation. Every list is
// streamed page by page (100 a page). A read the installation may not make (403 "Resource not
// accessible by integration") or the plan does not have (404 on Copilot) is a coverage gap, not a
// failed scan; only the repositories listing, without which nothing is scanned, fails the scan.

export type TGithubAdapterOptions = {
  org: string;
  credentials: TGithubAppCredentials;
  /** https://api.github.com, or a GitHub Enterprise Server's `https://HOST/api/v3`. */
  baseUrl?: string;
  http?: TGithubHttpOptions;
};

export type TGithubAdapter = {
  organization: () => Promise<TGithubOrganization>;
  members: () => AsyncIterable<TGithubMember>;
  outsideCollaborators: () => AsyncIterable<TGithubOutsideCollaborator>;
  /** Each repository with its outside collaborators and deploy keys. */
  repositories: () => AsyncIterable<TGithubRepository>;
  teams: () => AsyncIterable<TGithubTeam>;
  installations: () => AsyncIterable<TGithubInstallation>;
  copilotSeats: () => AsyncIterable<TGithubCopilotSeat>;
  tenantSettings: () => Promise<TTenantSetting[]>;
  checkAccess: () => Promise<TAccessCheck[]>;
  coverageGaps: () => TCoverageGap[];
};

type TUser = { id: number; login: string };
type TRepo = {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  visibility?: string;
  fork: boolean;
  archived?: boolean;
  html_url: string;
  created_at?: string | null;
  pushed_at?: string | null;
};

/** The settings `GET /orgs/{org}` shows owners (and apps with Administration: read) only. */
export const GITHUB_ORG_SETTINGS = [
  "two_factor_requirement_enabled",
  "default_repository_permission",
  "members_can_create_public_repositories",
  "members_can_fork_private_repositories",
  "secret_scanning_enabled_for_new_repositories",
  "secret_scanning_push_protection_enabled_for_new_repositories",
] as const;
export const GITHUB_ACTIONS_SETTINGS = [
  "enabled_repositories",
  "allowed_actions",
  "sha_pinning_required",
] as const;

const isRefusal = (error: unknown, ...statuses: number[]): error is GithubApiError =>
  error instanceof GithubApiError && statuses.includes(error.status);

const visibilityOf = (repo: TRepo): TGithubRepository["visibility"] =>
  repo.visibility === "public" || repo.visibility === "internal" || repo.visibility === "private"
    ? repo.visibility
    : repo.private
      ? "private"
      : "public";

const asSetting = (value: unknown): TSettingValue =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : null;

export function createGithubAdapter(opts: TGithubAdapterOptions): TGithubAdapter {
  const tokens = githubAppTokens(opts.credentials, { baseUrl: opts.baseUrl, http: opts.http });
  const client = createGithubClient({ baseUrl: opts.baseUrl, tokens, http: opts.http });
  const org = encodeURIComponent(opts.org);
  const gaps = new Map<string, TCoverageGap>();
  const gap = (feature: string, error: GithubApiError, detail: string) =>
    gaps.set(feature, { feature, missing: error.acceptedPermissions ?? `HTTP ${error.status}`, detail });

  /** Iterates `items`; a 403 (or one of `statuses`) ends it as a gap of `feature` instead of failing the scan. */
  async function* optional<T>(feature: string, detail: string, items: AsyncIterable<T>, statuses = [403]) {
    try {
      yield* items;
    } catch (error) {
      if (!isRefusal(error, ...statuses)) throw error;
      gap(feature, error, detail);
    }
  }

  /** Logins of the people a list holds, or null when it was refused (a gap). */
  const logins = async (
    path: string,
    query: Record<string, string>,
    refusals: { statuses: number[]; feature: string; detail: string },
  ) => {
    const found = new Set<string>();
    try {
      for await (const u of client.list<TUser>(path, query)) found.add(u.login);
      return found;
    } catch (error) {
      const { statuses, feature, detail } = refusals;
      if (!isRefusal(error, ...statuses)) throw error;
      gap(feature, error, detail);
      return null;
    }
  };
  // Only owners may filter by 2FA (422 otherwise): then 2FA is unknown. A 403 is the list's own refusal.
  const withoutTwoFactor = (path: string) =>
    logins(
      path,
      { filter: "2fa_disabled" },
      {
        statuses: [422],
        feature: "Two-factor authentication",
        detail: `${path}?filter=2fa_disabled was refused: 2FA is unknown`,
      },
    );

  async function* membersOf(): AsyncGenerator<TGithubMember> {
    const lax = await withoutTwoFactor(`/orgs/${org}/members`);
    for (const role of ["admin", "member"] as const)
      for await (const u of client.list<TUser>(`/orgs/${org}/members`, { role }))
        yield {
          id: String(u.id),
          login: u.login,
          role: role === "admin" ? "owner" : "member",
          mfaEnabled: lax ? !lax.has(u.login) : null,
        };
  }

  async function* outsideOf(): AsyncGenerator<TGithubOutsideCollaborator> {
    const lax = await withoutTwoFactor(`/orgs/${org}/outside_collaborators`);
    for await (const u of client.list<TUser>(`/orgs/${org}/outside_collaborators`))
      yield { id: String(u.id), login: u.login, mfaEnabled: lax ? !lax.has(u.login) : null };
  }

  async function* repositoriesOf(): AsyncGenerator<TGithubRepository> {
    // An organization without outside collaborators has none on any repository: one call saves one a repository.
    const outside = await logins(
      `/orgs/${org}/outside_collaborators`,
      {},
      {
        statuses: [403],
        feature: GITHUB_FEATURE.members,
        detail: "Outside collaborators were not listed; each repository's are read instead",
      },
    );
    let keysReadable = true;
    try {
      for await (const repo of client.list<TRepo>(`/orgs/${org}/repos`, { type: "all", sort: "full_name" })) {
        const [owner, name] = repo.full_name.split("/").map(encodeURIComponent);
        const path = `/repos/${owner ?? org}/${name ?? encodeURIComponent(repo.name)}`;
        const collaborators: TGithubCollaborator[] = [];
        if (outside === null || outside.size > 0)
          for await (const c of client.list<TUser & { role_name?: string }>(`${path}/collaborators`, {
            affiliation: "outside",
          }))
            collaborators.push({ id: String(c.id), login: c.login, role: c.role_name ?? "read" });
        let deployKeys: TGithubDeployKey[] | null = null;
        if (keysReadable) {
          try {
            deployKeys = [];
            for await (const k of client.list<{
              id: number;
              title: string;
              read_only: boolean;
              created_at: string;
              last_used?: string | null;
            }>(`${path}/keys`))
              deployKeys.push({
                id: String(k.id),
                title: k.title,
                readOnly: k.read_only,
                createdAt: k.created_at,
                lastUsedAt: k.last_used ?? null,
              });
          } catch (error) {
            if (!isRefusal(error, 403)) throw error;
            // The permission is the installation's, not the repository's: one refusal answers for all.
            keysReadable = false;
            deployKeys = null;
            gap(GITHUB_FEATURE.deployKeys, error, "Deploy keys were not read");
          }
        }
        yield {
          id: String(repo.id),
          name: repo.name,
          fullName: repo.full_name,
          visibility: visibilityOf(repo),
          fork: repo.fork,
          archived: repo.archived ?? false,
          htmlUrl: repo.html_url,
          createdAt: repo.created_at ?? null,
          pushedAt: repo.pushed_at ?? null,
          outsideCollaborators: collaborators,
          deployKeys,
        };
      }
    } catch (error) {
      if (isRefusal(error, 403, 404)) throw new SourceAuthError(error.message);
      throw error;
    }
  }

  async function* teamsOf(): AsyncGenerator<TGithubTeam> {
    type TTeam = {
      id: number;
      slug: string;
      name: string;
      privacy?: string;
      permission: string;
      parent?: { slug: string } | null;
    };
    for await (const t of client.list<TTeam>(`/orgs/${org}/teams`))
      yield {
        id: String(t.id),
        slug: t.slug,
        name: t.name,
        privacy: t.privacy === "closed" || t.privacy === "secret" ? t.privacy : null,
        permission: t.permission,
        parentSlug: t.parent?.slug ?? null,
      };
  }

  async function* installationsOf(): AsyncGenerator<TGithubInstallation> {
    type TInstallation = {
      id: number;
      app_id: number;
      app_slug: string;
      client_id?: string;
      permissions: Record<string, string>;
      events: string[];
      repository_selection: "all" | "selected";
      created_at: string;
      suspended_at: string | null;
    };
    const pick = (body: unknown) => (body as { installations: TInstallation[] }).installations;
    for await (const i of client.list<TInstallation>(`/orgs/${org}/installations`, {}, pick))
      yield {
        id: String(i.id),
        appId: String(i.app_id),
        appSlug: i.app_slug,
        clientId: i.client_id ?? null,
        permissions: i.permissions,
        events: i.events,
        repositorySelection: i.repository_selection,
        createdAt: i.created_at,
        suspendedAt: i.suspended_at,
      };
  }

  async function* seatsOf(): AsyncGenerator<TGithubCopilotSeat> {
    type TSeat = {
      assignee: TUser | null;
      plan_type?: string;
      created_at: string;
      last_activity_at?: string | null;
      pending_cancellation_date?: string | null;
    };
    const pick = (body: unknown) => (body as { seats?: TSeat[] }).seats ?? [];
    for await (const s of client.list<TSeat>(`/orgs/${org}/copilot/billing/seats`, {}, pick)) {
      if (!s.assignee) continue;
      yield {
        login: s.assignee.login,
        userId: String(s.assignee.id),
        planType: s.plan_type ?? null,
        createdAt: s.created_at,
        lastActivityAt: s.last_activity_at ?? null,
        pendingCancellationDate: s.pending_cancellation_date ?? null,
      };
    }
  }

  const orgBody = () =>
    client.get<Record<string, unknown> & TUser & { name?: string | null; html_url: string }>(`/orgs/${org}`);

  return {
    organization: async () => {
      const body = await orgBody();
      return { id: String(body.id), login: body.login, name: body.name ?? null, htmlUrl: body.html_url };
    },
    members: () => optional(GITHUB_FEATURE.members, "Members were not read", membersOf()),
    outsideCollaborators: () =>
      optional(GITHUB_FEATURE.members, "Outside collaborators were not read", outsideOf()),
    repositories: repositoriesOf,
    teams: () => optional(GITHUB_FEATURE.members, "Teams were not read", teamsOf()),
    installations: () => optional(GITHUB_FEATURE.settings, "Installed apps were not read", installationsOf()),
    copilotSeats: () =>
      optional(
        GITHUB_FEATURE.copilot,
        "Copilot seats were not read (no permission, or no Copilot Business or Enterprise)",
        seatsOf(),
        [403, 404],
      ),
    tenantSettings: async () => {
      const body = await orgBody();
      const settings: TTenantSetting[] = GITHUB_ORG_SETTINGS.map((field) =>
        field in body
          ? { key: `org.${field}`, value: asSetting(body[field]), source: "GET /orgs/{org}" }
          : {
              key: `org.${field}`,
              unavailable: "GET /orgs/{org} shows it only with Administration (organization): read",
            },
      );
      try {
        const actions = await client.get<Record<string, unknown>>(`/orgs/${org}/actions/permissions`);
        for (const field of GITHUB_ACTIONS_SETTINGS)
          settings.push(
            field in actions
              ? {
                  key: `actions.${field}`,
                  value: asSetting(actions[field]),
                  source: "GET /orgs/{org}/actions/permissions",
                }
              : { key: `actions.${field}`, unavailable: "not in GitHub's answer" },
          );
      } catch (error) {
        if (!isRefusal(error, 403, 404)) throw error;
        for (const field of GITHUB_ACTIONS_SETTINGS)
          settings.push({ key: `actions.${field}`, unavailable: error.message });
      }
      return settings;
    },
    checkAccess: async () => {
      const checks = checkGithubAccess(await tokens.permissions());
      // The token says what the app may do; this says it is installed on this organization.
      await orgBody().catch((error: unknown) => {
        if (isRefusal(error, 403, 404))
          throw new SourceAuthError(
            `The installation cannot read organization ${opts.org}: ${error.message}`,
          );
        throw error;
      });
      return checks;
    },
    coverageGaps: () => [...gaps.values()],
  };
}
