import {
  type TAccessCheck,
  type TCoverageGap,
  type TSettingValue,
  type TTenantSetting,
  SourceAuthError,
} from "../types";
import { checkGithubAccess, GITHUB_FEATURE } from "./access";
import { githubAppTokens, type TGithubAppCredentials } from "./auth";
import { createGithubClient, type GithubApiError, type TGithubHttpOptions } from "./http";
import {
  isRefusal,
  readCopilotSeats,
  readInstallations,
  readMembers,
  readOutsideCollaborators,
  readTeams,
  type TReadContext,
  type TUser,
} from "./reads";
import { readRepositories } from "./repositories";
import {
  type TGithubCopilotSeat,
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

const asSetting = (value: unknown): TSettingValue =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : null;

export function createGithubAdapter(opts: TGithubAdapterOptions): TGithubAdapter {
  const tokens = githubAppTokens(opts.credentials, { baseUrl: opts.baseUrl, http: opts.http });
  const client = createGithubClient({ baseUrl: opts.baseUrl, tokens, http: opts.http });
  const org = encodeURIComponent(opts.org);
  const gaps = new Map<string, TCoverageGap>();
  const gap = (feature: string, error: GithubApiError, detail: string) =>
    gaps.set(feature, { feature, missing: error.acceptedPermissions ?? `HTTP ${error.status}`, detail });

  const ctx: TReadContext = { client, org, gap };

  /** Iterates `items`; a 403 (or one of `statuses`) ends it as a gap of `feature` instead of failing the scan. */
  async function* optional<T>(feature: string, detail: string, items: AsyncIterable<T>, statuses = [403]) {
    try {
      yield* items;
    } catch (error) {
      if (!isRefusal(error, ...statuses)) throw error;
      gap(feature, error, detail);
    }
  }

  const orgBody = () =>
    client.get<Record<string, unknown> & TUser & { name?: string | null; html_url: string }>(`/orgs/${org}`);

  return {
    organization: async () => {
      const body = await orgBody();
      return { id: String(body.id), login: body.login, name: body.name ?? null, htmlUrl: body.html_url };
    },
    members: () => optional(GITHUB_FEATURE.members, "Members were not read", readMembers(ctx)),
    outsideCollaborators: () =>
      optional(GITHUB_FEATURE.members, "Outside collaborators were not read", readOutsideCollaborators(ctx)),
    repositories: () => readRepositories(ctx),
    teams: () => optional(GITHUB_FEATURE.members, "Teams were not read", readTeams(ctx)),
    installations: () =>
      optional(GITHUB_FEATURE.settings, "Installed apps were not read", readInstallations(ctx)),
    copilotSeats: () =>
      optional(
        GITHUB_FEATURE.copilot,
        "Copilot seats were not read (no permission, or no Copilot Business or Enterprise)",
        readCopilotSeats(ctx),
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
