import { GithubApiError, type TGithubClient } from "./http";
import {
  type TGithubCopilotSeat,
  type TGithubInstallation,
  type TGithubMember,
  type TGithubOutsideCollaborator,
  type TGithubTeam,
} from "./types";

// The organization's lists as the adapter streams them, each read 100 a page; what GitHub refuses
// is the caller's to turn into a coverage gap (`TReadContext.gap`).

export type TReadContext = {
  client: TGithubClient;
  /** The organization's login, URL-encoded. */
  org: string;
  gap: (feature: string, error: GithubApiError, detail: string) => void;
};

export type TUser = { id: number; login: string };

export const isRefusal = (error: unknown, ...statuses: number[]): error is GithubApiError =>
  error instanceof GithubApiError && statuses.includes(error.status);

/** Logins of the people a list holds, or null when GitHub refused it with one of `statuses` (a gap). */
export async function logins(
  ctx: TReadContext,
  path: string,
  query: Record<string, string>,
  refusal: { statuses: number[]; feature: string; detail: string },
): Promise<Set<string> | null> {
  const found = new Set<string>();
  try {
    for await (const u of ctx.client.list<TUser>(path, query)) found.add(u.login);
    return found;
  } catch (error) {
    if (!isRefusal(error, ...refusal.statuses)) throw error;
    ctx.gap(refusal.feature, error, refusal.detail);
    return null;
  }
}

// Only owners may filter by 2FA (422 otherwise): then 2FA is unknown. A 403 is the list's own refusal.
const withoutTwoFactor = (ctx: TReadContext, path: string) =>
  logins(
    ctx,
    path,
    { filter: "2fa_disabled" },
    {
      statuses: [422],
      feature: "Two-factor authentication",
      detail: `${path}?filter=2fa_disabled was refused: 2FA is unknown`,
    },
  );

export async function* readMembers(ctx: TReadContext): AsyncGenerator<TGithubMember> {
  const path = `/orgs/${ctx.org}/members`;
  const lax = await withoutTwoFactor(ctx, path);
  for (const role of ["admin", "member"] as const)
    for await (const u of ctx.client.list<TUser>(path, { role }))
      yield {
        id: String(u.id),
        login: u.login,
        role: role === "admin" ? "owner" : "member",
        mfaEnabled: lax ? !lax.has(u.login) : null,
      };
}

export async function* readOutsideCollaborators(
  ctx: TReadContext,
): AsyncGenerator<TGithubOutsideCollaborator> {
  const path = `/orgs/${ctx.org}/outside_collaborators`;
  const lax = await withoutTwoFactor(ctx, path);
  for await (const u of ctx.client.list<TUser>(path))
    yield { id: String(u.id), login: u.login, mfaEnabled: lax ? !lax.has(u.login) : null };
}

export async function* readTeams(ctx: TReadContext): AsyncGenerator<TGithubTeam> {
  type TTeam = {
    id: number;
    slug: string;
    name: string;
    privacy?: string;
    permission: string;
    parent?: { slug: string } | null;
  };
  for await (const t of ctx.client.list<TTeam>(`/orgs/${ctx.org}/teams`))
    yield {
      id: String(t.id),
      slug: t.slug,
      name: t.name,
      privacy: t.privacy === "closed" || t.privacy === "secret" ? t.privacy : null,
      permission: t.permission,
      parentSlug: t.parent?.slug ?? null,
    };
}

export async function* readInstallations(ctx: TReadContext): AsyncGenerator<TGithubInstallation> {
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
  for await (const i of ctx.client.list<TInstallation>(`/orgs/${ctx.org}/installations`, {}, pick))
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

export async function* readCopilotSeats(ctx: TReadContext): AsyncGenerator<TGithubCopilotSeat> {
  type TSeat = {
    assignee: TUser | null;
    plan_type?: string;
    created_at: string;
    last_activity_at?: string | null;
    pending_cancellation_date?: string | null;
  };
  const pick = (body: unknown) => (body as { seats?: TSeat[] }).seats ?? [];
  for await (const s of ctx.client.list<TSeat>(`/orgs/${ctx.org}/copilot/billing/seats`, {}, pick)) {
    // A seat of a deleted account has no assignee: no one to count.
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
