import { complete, GITHUB_DOCS } from "./fake-github-schema";
import {
  type TGithubFixture,
  type TGithubFixtureRepo,
  type TGithubFixtureUser,
  type TGithubRepoPermission,
} from "./fake-github-fixture";

// The answers of the operations the fake serves, built from the fixture and completed against
// the description's response schemas (`complete`): whole lists, which the server pages.

/** A listing (paged by the server) or one object. `wrap` puts a page in its envelope (installations, seats). */
export type TRouteAnswer =
  | { status: number; body: unknown }
  | {
      status: 200;
      list: unknown[];
      /** Builds an item's answer; applied to the page only, so a 20,000-item list is cheap to page. */
      render?: (item: never) => unknown;
      wrap?: (page: unknown[]) => unknown;
    };

export type TRouteContext = {
  fixture: TGithubFixture;
  base: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The permissions of the calling token. */
  held: Record<string, string>;
  /** The request's JSON body (already checked against the operation's schema). */
  body?: unknown;
};

const notFound = {
  status: 404,
  body: { message: "Not Found", documentation_url: GITHUB_DOCS, status: "404" },
};

export function simpleUser(u: Pick<TGithubFixtureUser, "id" | "login">, base: string) {
  return complete(
    "simple-user",
    {
      login: u.login,
      id: u.id,
      node_id: `U_${u.id}`,
      html_url: `https://github.com/${u.login}`,
      url: `${base}/users/${u.login}`,
      type: "User",
      site_admin: false,
    },
    base,
  );
}

const PERMISSION_HASH: Record<TGithubRepoPermission, Record<string, boolean>> = {
  admin: { admin: true, maintain: true, push: true, triage: true, pull: true },
  maintain: { admin: false, maintain: true, push: true, triage: true, pull: true },
  push: { admin: false, maintain: false, push: true, triage: true, pull: true },
  triage: { admin: false, maintain: false, push: false, triage: true, pull: true },
  pull: { admin: false, maintain: false, push: false, triage: false, pull: true },
};
const ROLE_NAME: Record<TGithubRepoPermission, string> = {
  admin: "admin",
  maintain: "maintain",
  push: "write",
  triage: "triage",
  pull: "read",
};

function repository(fixture: TGithubFixture, repo: TGithubFixtureRepo, base: string) {
  const fullName = `${fixture.org.login}/${repo.name}`;
  return complete(
    "minimal-repository",
    {
      id: repo.id,
      node_id: `R_${repo.id}`,
      name: repo.name,
      full_name: fullName,
      owner: complete("simple-user", { ...simpleUser(fixture.org, base), type: "Organization" }, base),
      private: repo.visibility !== "public",
      visibility: repo.visibility,
      html_url: `https://github.com/${fullName}`,
      description: null,
      fork: repo.fork,
      archived: repo.archived,
      url: `${base}/repos/${fullName}`,
      default_branch: "main",
      created_at: repo.createdAt,
      updated_at: repo.pushedAt,
      pushed_at: repo.pushedAt,
    },
    base,
  );
}

function organization(ctx: TRouteContext) {
  const { fixture, base } = ctx;
  const publicPart = complete(
    "organization-full",
    {
      login: fixture.org.login,
      id: fixture.org.id,
      node_id: `O_${fixture.org.id}`,
      url: `${base}/orgs/${fixture.org.login}`,
      html_url: `https://github.com/${fixture.org.login}`,
      name: fixture.org.name,
      description: null,
      type: "Organization",
      public_repos: fixture.repositories.filter((r) => r.visibility === "public").length,
      created_at: "2020-01-01T00:00:00Z",
      updated_at: "2025-01-01T00:00:00Z",
      archived_at: null,
    },
    base,
  );
  // GitHub shows the settings only to owners; an app sees them with Administration: read.
  return ctx.held.organization_administration ? { ...publicPart, ...fixture.settings } : publicPart;
}

function collaborators(ctx: TRouteContext, repo: TGithubFixtureRepo): TRouteAnswer {
  const { fixture, base, query } = ctx;
  const affiliation = query.get("affiliation") ?? "all";
  const outside = new Set(fixture.outsideCollaborators.map((u) => u.login));
  const users = new Map(
    [...fixture.members.map((m) => m.user), ...fixture.outsideCollaborators].map((u) => [u.login, u]),
  );
  const direct = repo.collaborators.filter((c) => affiliation !== "outside" || outside.has(c.login));
  // Owners reach every repository: `all` lists them too.
  const owners =
    affiliation === "all"
      ? fixture.members
          .filter((m) => m.role === "admin" && !repo.collaborators.some((c) => c.login === m.user.login))
          .map((m) => ({ login: m.user.login, permission: "admin" as const }))
      : [];
  const wanted = query.get("permission");
  const list = [...direct, ...owners]
    .filter((c) => !wanted || PERMISSION_HASH[c.permission][wanted])
    .flatMap((c) => {
      const u = users.get(c.login);
      if (!u) return [];
      return [
        complete(
          "collaborator",
          {
            ...simpleUser(u, base),
            permissions: PERMISSION_HASH[c.permission],
            role_name: ROLE_NAME[c.permission],
          },
          base,
        ),
      ];
    });
  return { status: 200, list };
}

function members(ctx: TRouteContext): TRouteAnswer {
  const role = ctx.query.get("role") ?? "all";
  const filter = ctx.query.get("filter") ?? "all";
  const list = ctx.fixture.members
    .filter((m) => role === "all" || m.role === role)
    .filter((m) => filter === "all" || !m.user.twoFactor)
    .map((m) => simpleUser(m.user, ctx.base));
  return { status: 200, list };
}

const TYPE_FILTER: Record<string, (r: TGithubFixtureRepo) => boolean> = {
  all: () => true,
  public: (r) => r.visibility === "public",
  private: (r) => r.visibility !== "public",
  forks: (r) => r.fork,
  sources: (r) => !r.fork,
  member: () => true,
};

/** The organization's repositories as `type`, `sort` and `direction` ask (GitHub: created, newest first). */
function orgRepositories({ fixture, query }: TRouteContext): TGithubFixtureRepo[] {
  const sort = query.get("sort") ?? "created";
  const direction = query.get("direction") ?? (sort === "full_name" ? "asc" : "desc");
  const keyOf = (r: TGithubFixtureRepo) =>
    sort === "full_name" ? r.name : sort === "created" ? r.createdAt : r.pushedAt;
  const filter = TYPE_FILTER[query.get("type") ?? "all"] ?? TYPE_FILTER.all;
  const sorted = fixture.repositories
    .filter((r) => filter?.(r) ?? true)
    .sort((a, b) => keyOf(a).localeCompare(keyOf(b)) || a.id - b.id);
  return direction === "asc" ? sorted : sorted.reverse();
}

// Per-repository calls look their repository up by name: a map per fixture, not a scan per call.
const byName = new WeakMap<TGithubFixtureRepo[], Map<string, TGithubFixtureRepo>>();
function repositoryNamed(fixture: TGithubFixture, name: string): TGithubFixtureRepo | undefined {
  let index = byName.get(fixture.repositories);
  if (!index) {
    index = new Map(fixture.repositories.map((r) => [r.name, r]));
    byName.set(fixture.repositories, index);
  }
  return index.get(name);
}

/** A user's access to a repository: a direct grant, an owner's admin, or nothing (`null`). */
function accessOf(
  fixture: TGithubFixture,
  repo: TGithubFixtureRepo,
  login: string,
): TGithubRepoPermission | null {
  const direct = repo.collaborators.find((c) => c.login === login);
  if (direct) return direct.permission;
  return fixture.members.some((m) => m.role === "admin" && m.user.login === login) ? "admin" : null;
}

function fullRepository(fixture: TGithubFixture, repo: TGithubFixtureRepo, base: string) {
  const minimal = repository(fixture, repo, base);
  return complete("full-repository", { ...minimal, visibility: repo.visibility }, base);
}

/** The writes remediation makes (GitHub's own answers: 204 without a body, 201 with an invitation). */
function writeRoute(operationId: string, ctx: TRouteContext, repo: TGithubFixtureRepo): TRouteAnswer | null {
  const { fixture, base, params } = ctx;
  const users = new Map(
    [...fixture.members.map((m) => m.user), ...fixture.outsideCollaborators].map((u) => [u.login, u]),
  );
  const body = (ctx.body ?? {}) as { permission?: string; visibility?: string };
  switch (operationId) {
    case "repos/get":
      return { status: 200, body: fullRepository(fixture, repo, base) };
    case "repos/update": {
      if (body.visibility === "public" || body.visibility === "private" || body.visibility === "internal")
        repo.visibility = body.visibility;
      return { status: 200, body: fullRepository(fixture, repo, base) };
    }
    case "repos/get-collaborator-permission-level": {
      const u = users.get(params.username ?? "");
      if (!u) return notFound;
      const access = accessOf(fixture, repo, u.login);
      const legacy =
        access === null ? "none" : access === "push" ? "write" : access === "pull" ? "read" : access;
      return {
        status: 200,
        body: complete(
          "repository-collaborator-permission",
          {
            permission: access === "maintain" ? "write" : access === "triage" ? "read" : legacy,
            role_name: access === null ? "none" : ROLE_NAME[access],
            user:
              access === null
                ? null
                : complete(
                    "nullable-collaborator",
                    {
                      ...simpleUser(u, base),
                      permissions: PERMISSION_HASH[access],
                      role_name: ROLE_NAME[access],
                    },
                    base,
                  ),
          },
          base,
        ),
      };
    }
    case "repos/remove-collaborator":
      repo.collaborators = repo.collaborators.filter((c) => c.login !== params.username);
      return { status: 204, body: undefined };
    case "repos/add-collaborator": {
      const u = users.get(params.username ?? "");
      if (!u) return notFound;
      const permission = (body.permission ?? "push") as TGithubRepoPermission;
      const existing = repo.collaborators.find((c) => c.login === u.login);
      if (existing) {
        existing.permission = permission;
        return { status: 204, body: undefined };
      }
      fixture.invitations ??= [];
      const invitation = {
        id: 8000 + fixture.invitations.length,
        repo: repo.name,
        login: u.login,
        permission,
      };
      fixture.invitations.push(invitation);
      return { status: 201, body: invitationOf(ctx, repo, invitation) };
    }
    case "repos/list-invitations": {
      const list = (fixture.invitations ?? []).filter((i) => i.repo === repo.name);
      return {
        status: 200,
        list,
        render: (i: TGithubFixtureInvitation) => invitationOf(ctx, repo, i),
      };
    }
    case "repos/update-invitation": {
      const invitation = (fixture.invitations ?? []).find(
        (i) => i.repo === repo.name && String(i.id) === params.invitation_id,
      );
      if (!invitation) return notFound;
      const to = (body as { permissions?: string }).permissions;
      if (to !== undefined) invitation.permission = PERMISSION_OF_ROLE[to] ?? invitation.permission;
      return { status: 200, body: invitationOf(ctx, repo, invitation) };
    }
    case "repos/get-deploy-key": {
      const key = repo.deployKeys.find((k) => String(k.id) === params.key_id);
      return key ? { status: 200, body: deployKeyOf(ctx, repo, key) } : notFound;
    }
    case "repos/delete-deploy-key": {
      if (!repo.deployKeys.some((k) => String(k.id) === params.key_id)) return notFound;
      highestKeyId(fixture);
      repo.deployKeys = repo.deployKeys.filter((k) => String(k.id) !== params.key_id);
      return { status: 204, body: undefined };
    }
    case "repos/create-deploy-key":
      return createDeployKey(ctx, repo);
    default:
      return null;
  }
}

type TGithubFixtureDeployKey = TGithubFixtureRepo["deployKeys"][number];

const publicKeyOf = (k: TGithubFixtureDeployKey) => k.key ?? `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA${k.id}`;

function deployKeyOf(ctx: TRouteContext, repo: TGithubFixtureRepo, k: TGithubFixtureDeployKey) {
  const { fixture, base } = ctx;
  return complete(
    "deploy-key",
    {
      id: k.id,
      key: publicKeyOf(k),
      url: `${base}/repos/${fixture.org.login}/${repo.name}/keys/${k.id}`,
      title: k.title,
      verified: true,
      created_at: k.createdAt,
      read_only: k.readOnly,
      last_used: k.lastUsed,
      enabled: true,
    },
    base,
  );
}

// GitHub never hands out a key id twice, not even a deleted key's: the highest the fixture had.
const lastKeyId = new WeakMap<TGithubFixture, number>();
function highestKeyId(fixture: TGithubFixture): number {
  const ids = fixture.repositories.flatMap((r) => r.deployKeys.map((k) => k.id));
  const highest = Math.max(7000, lastKeyId.get(fixture) ?? 0, ...ids);
  lastKeyId.set(fixture, highest);
  return highest;
}

/** GitHub adds a key under a new id, and refuses one the repository already has ("key is already in use"). */
function createDeployKey(ctx: TRouteContext, repo: TGithubFixtureRepo): TRouteAnswer {
  const body = (ctx.body ?? {}) as { title?: string; key?: string; read_only?: boolean };
  const invalid = (code: string, message?: string) => ({
    status: 422,
    body: {
      message: "Validation Failed",
      errors: [{ resource: "PublicKey", code, field: "key", ...(message ? { message } : {}) }],
      documentation_url: "https://docs.github.com/rest/deploy-keys/deploy-keys#create-a-deploy-key",
      status: "422",
    },
  });
  if (!body.key) return invalid("missing_field");
  const key = body.key.trim();
  if (repo.deployKeys.some((k) => publicKeyOf(k) === key)) return invalid("custom", "key is already in use");
  const id = highestKeyId(ctx.fixture) + 1;
  lastKeyId.set(ctx.fixture, id);
  const created: TGithubFixtureDeployKey = {
    id,
    title: body.title ?? "",
    key,
    readOnly: body.read_only ?? false,
    createdAt: "2025-06-01T12:00:00Z",
    lastUsed: null,
  };
  repo.deployKeys.push(created);
  return { status: 201, body: deployKeyOf(ctx, repo, created) };
}

type TGithubFixtureInvitation = NonNullable<TGithubFixture["invitations"]>[number];

/** An invitation's `permissions` (a role name) as the fixture keeps it (the `permission` body value). */
const PERMISSION_OF_ROLE: Record<string, TGithubRepoPermission> = {
  read: "pull",
  triage: "triage",
  write: "push",
  maintain: "maintain",
  admin: "admin",
};

/** A pending invitation as GitHub answers it (`repository-invitation`): never expired in the fake. */
function invitationOf(ctx: TRouteContext, repo: TGithubFixtureRepo, i: TGithubFixtureInvitation) {
  const { fixture, base } = ctx;
  const invitee = [...fixture.members.map((m) => m.user), ...fixture.outsideCollaborators].find(
    (u) => u.login === i.login,
  );
  return complete(
    "repository-invitation",
    {
      id: i.id,
      node_id: `RI_${i.id}`,
      repository: repository(fixture, repo, base),
      invitee: invitee ? simpleUser(invitee, base) : null,
      inviter: null,
      permissions: ROLE_NAME[i.permission],
      expired: false,
      created_at: "2025-06-01T12:00:00Z",
      url: `${base}/user/repository_invitations/${i.id}`,
      html_url: `https://github.com/${fixture.org.login}/${repo.name}/invitations`,
    },
    base,
  );
}

export function route(operationId: string, ctx: TRouteContext): TRouteAnswer {
  const { fixture, base, params } = ctx;
  const org = params.org ?? params.owner;
  if (org !== undefined && org.toLowerCase() !== fixture.org.login) return notFound;
  const repo = params.repo === undefined ? undefined : repositoryNamed(fixture, params.repo);
  if (params.repo !== undefined && !repo) return notFound;
  const written = repo ? writeRoute(operationId, ctx, repo) : null;
  if (written) return written;
  switch (operationId) {
    case "orgs/get":
      return { status: 200, body: organization(ctx) };
    case "repos/list-for-org":
      return {
        status: 200,
        list: orgRepositories(ctx),
        render: (r: TGithubFixtureRepo) => repository(fixture, r, base),
      };
    case "orgs/list-members":
      return members(ctx);
    case "orgs/list-outside-collaborators": {
      const filter = ctx.query.get("filter") ?? "all";
      const list = fixture.outsideCollaborators
        .filter((u) => filter === "all" || !u.twoFactor)
        .map((u) => simpleUser(u, base));
      return { status: 200, list };
    }
    case "teams/list": {
      const list = fixture.teams.map((t) => {
        const parent = fixture.teams.find((p) => p.slug === t.parentSlug);
        const teamSimple = (x: typeof t) => ({
          id: x.id,
          node_id: `T_${x.id}`,
          name: x.name,
          slug: x.slug,
          description: null,
          privacy: x.privacy,
          permission: x.permission,
          type: "organization",
          url: `${base}/organizations/${fixture.org.id}/team/${x.id}`,
          html_url: `https://github.com/orgs/${fixture.org.login}/teams/${x.slug}`,
        });
        return complete(
          "team",
          {
            ...teamSimple(t),
            parent: parent ? complete("nullable-team-simple", teamSimple(parent), base) : null,
          },
          base,
        );
      });
      return { status: 200, list };
    }
    case "repos/list-collaborators":
      return repo ? collaborators(ctx, repo) : notFound;
    case "repos/list-deploy-keys": {
      if (!repo) return notFound;
      return { status: 200, list: repo.deployKeys.map((k) => deployKeyOf(ctx, repo, k)) };
    }
    case "orgs/list-app-installations": {
      const list = fixture.installations.map((i) =>
        complete(
          "installation",
          {
            id: i.id,
            app_id: i.appId,
            app_slug: i.appSlug,
            client_id: i.clientId,
            account: { ...simpleUser(fixture.org, base), type: "Organization" },
            target_id: fixture.org.id,
            target_type: "Organization",
            repository_selection: i.repositorySelection,
            permissions: i.permissions,
            events: i.events,
            created_at: i.createdAt,
            updated_at: i.createdAt,
            single_file_name: null,
            suspended_by: null,
            suspended_at: i.suspendedAt,
            html_url: `https://github.com/organizations/${fixture.org.login}/settings/installations/${i.id}`,
          },
          base,
        ),
      );
      return { status: 200, list, wrap: (page) => ({ total_count: list.length, installations: page }) };
    }
    case "actions/get-github-actions-permissions-organization":
      return { status: 200, body: { ...fixture.actions } };
    case "copilot/list-copilot-seats": {
      if (!fixture.copilot) return notFound;
      const users = new Map(fixture.members.map((m) => [m.user.login, m.user]));
      const list = fixture.copilot.flatMap((seat) => {
        const u = users.get(seat.login);
        if (!u) return [];
        return [
          {
            created_at: seat.createdAt,
            updated_at: seat.createdAt,
            pending_cancellation_date: seat.pendingCancellationDate,
            last_activity_at: seat.lastActivityAt,
            last_activity_editor: seat.lastActivityAt ? "vscode/1.95.0/copilot/1.250.0" : null,
            plan_type: seat.planType,
            assignee: simpleUser(u, base),
            assigning_team: null,
          },
        ];
      });
      return { status: 200, list, wrap: (page) => ({ total_seats: list.length, seats: page }) };
    }
    default:
      return notFound;
  }
}
