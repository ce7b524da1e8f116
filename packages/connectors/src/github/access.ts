import { type TAccessCheck, type TAccessRequirement } from "../types";

// The installation permissions the connector's reads need, from GitHub's table "Permissions
// required for GitHub Apps" (github/docs, src/github-apps/data/fpt-2022-11-28/
// server-to-server-permissions.json), as `packages/fakes/src/vendor/github-rest-extract.json`
// records them per operation; `access.test.ts` checks the two agree. `permission` is the API name
// with its level (the app settings page shows e.g. Organization permissions › Members: Read-only).

export const GITHUB_FEATURE = {
  repositories: "Repositories and their outside collaborators",
  members: "Members, outside collaborators and teams",
  deployKeys: "Deploy keys",
  settings: "Organization settings, app installations and Actions permissions",
  copilot: "Copilot seats",
} as const;

export type TGithubRequirement = TAccessRequirement & {
  /** The permission's API name and the level needed (`members: read`): what the token must carry. */
  needs: Record<string, "read" | "write">;
  /** Any one of `needs` and these suffices. */
  orNeeds?: Record<string, "read" | "write">;
  /** The operations that need it, as `METHOD /path`. */
  operations: string[];
};

export const GITHUB_ACCESS: readonly TGithubRequirement[] = [
  {
    feature: GITHUB_FEATURE.repositories,
    permission: "metadata: read",
    needs: { metadata: "read" },
    operations: ["GET /orgs/{org}/repos", "GET /repos/{owner}/{repo}/collaborators"],
    impact: "Nothing is scanned: repositories and their visibility are the source's inventory.",
  },
  {
    feature: GITHUB_FEATURE.members,
    permission: "members: read",
    needs: { members: "read" },
    operations: ["GET /orgs/{org}/members", "GET /orgs/{org}/outside_collaborators", "GET /orgs/{org}/teams"],
    impact: "Members, their roles and 2FA, outside collaborators and teams are not read.",
  },
  {
    feature: GITHUB_FEATURE.deployKeys,
    permission: "administration: read",
    needs: { administration: "read" },
    operations: ["GET /repos/{owner}/{repo}/keys"],
    impact: "Deploy keys (and which can push) are not read.",
  },
  {
    feature: GITHUB_FEATURE.settings,
    permission: "organization_administration: read",
    needs: { organization_administration: "read" },
    operations: ["GET /orgs/{org}", "GET /orgs/{org}/installations", "GET /orgs/{org}/actions/permissions"],
    impact:
      "GET /orgs/{org} hides the security settings (2FA requirement, default permission, secret scanning defaults); installed apps and Actions permissions are not read.",
  },
  {
    feature: GITHUB_FEATURE.copilot,
    permission: "organization_copilot_seat_management: read",
    needs: { organization_copilot_seat_management: "read" },
    orNeeds: { organization_administration: "read" },
    licence: "GitHub Copilot Business or Enterprise",
    operations: ["GET /orgs/{org}/copilot/billing/seats"],
    impact: "Copilot seat assignments are not read: no one counts as a Copilot user.",
  },
];

const LEVEL: Record<string, number> = { read: 1, write: 2, admin: 3 };

export function holds(held: Record<string, string>, needed: Record<string, string>): boolean {
  return Object.entries(needed).every(
    ([name, level]) => (LEVEL[held[name] ?? ""] ?? 0) >= (LEVEL[level] ?? 9),
  );
}

/** Each requirement against the permissions an installation token carries. */
export function checkGithubAccess(held: Record<string, string>): TAccessCheck[] {
  return GITHUB_ACCESS.map(({ feature, permission, licence, impact, needs, orNeeds }) => {
    const granted = holds(held, needs) || (orNeeds !== undefined && holds(held, orNeeds));
    return {
      feature,
      permission,
      ...(licence ? { licence } : {}),
      impact,
      granted,
      ...(granted ? {} : { detail: `The installation's token carries no ${permission}` }),
    };
  });
}
