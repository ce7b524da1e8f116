import {
  SourceAuthError,
  type TAccessCheck,
  type TSourceAdapter,
  type TSourceFile,
  type TTenantSetting,
} from "../types";
import type { TDemoOverlayStore } from "../write";
import { loadOverlay, overlayFile } from "../demo/overlay";
import { keyedRepositories, withDemoDeployKeys } from "./demo-deploy-keys";
import { githubDriftAt, type TGithubDrift } from "./demo-revisions";
import { GITHUB_ACCESS } from "./access";
import type { TGithubAdapter } from "./adapter";
import { githubSourceAdapter, VISIBILITY_PERMISSION_ID } from "./source";
import type {
  TGithubCopilotSeat,
  TGithubDeployKey,
  TGithubInstallation,
  TGithubMember,
  TGithubRepoRole,
  TGithubRepository,
} from "./types";

// The demo GitHub organization (issue 31, `mode: "demo"`, `demo: {repositories?}`): a fixed
// organization whose first twelve repositories tell the story a security team looks for (a public
// repository named for credentials, one with open secret scanning alerts, outside collaborators
// with write and admin, deploy keys that can push, two-factor not required, members' base
// permission `write`), then as many quiet private services as the size asks. It depends on no
// seed and no clock: two demo organizations of one size and revision read the same, which is what
// lets the tests and the docs name its findings exactly. Its revisions (demo-revisions.ts) make
// quiet repositories public and give outside collaborators write for a few weeks at a time.

export const GITHUB_DEMO_ORG = "northwind-labs";
export const GITHUB_DEMO_LIMITS = { repositories: { min: 1, max: 20_000, default: 40 } };

const ORG_CREATED = "2019-03-01T09:00:00.000Z";

type TCuratedRepo = {
  name: string;
  visibility: TGithubRepository["visibility"];
  collaborators?: Array<{ login: string; role: TGithubRepoRole }>;
  keys?: Array<{ id: string; title: string; readOnly: boolean }>;
  secretAlerts?: number;
  archived?: boolean;
};

export const GITHUB_DEMO_REPOS: readonly TCuratedRepo[] = [
  {
    name: "payments-api",
    visibility: "private",
    collaborators: [{ login: "contractor-sam", role: "write" }],
    keys: [{ id: "101", title: "ci-deploy", readOnly: false }],
  },
  { name: "website", visibility: "public", keys: [{ id: "102", title: "pages-publish", readOnly: true }] },
  { name: "infra-credentials", visibility: "public" },
  { name: "mobile-app", visibility: "private", collaborators: [{ login: "agency-pixel", role: "read" }] },
  {
    name: "deploy-scripts",
    visibility: "private",
    collaborators: [{ login: "freelance-ops", role: "admin" }],
    keys: [{ id: "103", title: "prod-deploy", readOnly: false }],
  },
  { name: "sdk-js", visibility: "public", secretAlerts: 2 },
  {
    name: "design-system",
    visibility: "internal",
    collaborators: [{ login: "agency-pixel", role: "triage" }],
  },
  { name: "data-pipeline", visibility: "private" },
  { name: "docs", visibility: "public" },
  {
    name: "terraform-modules",
    visibility: "private",
    keys: [{ id: "104", title: "atlantis", readOnly: false }],
  },
  {
    name: "old-monolith",
    visibility: "private",
    archived: true,
    collaborators: [{ login: "contractor-sam", role: "read" }],
  },
  { name: "handbook", visibility: "internal" },
];

const MEMBERS: ReadonlyArray<{ login: string; owner?: true; mfa: boolean }> = [
  { login: "mara-okafor", owner: true, mfa: true },
  { login: "devon-lee", owner: true, mfa: false },
  { login: "ana-ruiz", mfa: true },
  { login: "ben-cho", mfa: true },
  { login: "chloe-martin", mfa: true },
  { login: "dmitri-volkov", mfa: true },
  { login: "eva-schmidt", mfa: true },
  { login: "farid-haddad", mfa: false },
  { login: "grace-kim", mfa: true },
  { login: "hugo-bernard", mfa: true },
  { login: "ines-costa", mfa: false },
  { login: "jonas-berg", mfa: true },
];

const OUTSIDE = ["agency-pixel", "contractor-sam", "freelance-ops"];

/** The demo organization's members (its size does not change them). */
export const GITHUB_DEMO_MEMBERS = MEMBERS.length;

const INSTALLATIONS: readonly TGithubInstallation[] = [
  {
    id: "9001",
    appId: "2740",
    appSlug: "renovate",
    clientId: null,
    permissions: { contents: "write", metadata: "read", pull_requests: "write", workflows: "write" },
    events: ["push", "pull_request"],
    repositorySelection: "all",
    createdAt: "2021-05-04T08:00:00.000Z",
    suspendedAt: null,
  },
  {
    id: "9002",
    appId: "7100",
    appSlug: "slack",
    clientId: null,
    permissions: { issues: "read", metadata: "read", pull_requests: "read" },
    events: ["issues", "pull_request"],
    repositorySelection: "all",
    createdAt: "2020-02-11T08:00:00.000Z",
    suspendedAt: null,
  },
  {
    id: "9003",
    appId: "254",
    appSlug: "codecov",
    clientId: null,
    permissions: { checks: "write", metadata: "read", statuses: "write" },
    events: ["check_run"],
    repositorySelection: "selected",
    createdAt: "2022-09-20T08:00:00.000Z",
    suspendedAt: null,
  },
  {
    id: "9004",
    appId: "347564",
    appSlug: "coderabbitai",
    clientId: null,
    permissions: { contents: "read", metadata: "read", pull_requests: "write" },
    events: ["pull_request", "issue_comment"],
    repositorySelection: "all",
    createdAt: "2025-03-14T08:00:00.000Z",
    suspendedAt: null,
  },
  {
    id: "9005",
    appId: "5120",
    appSlug: "legacy-ci",
    clientId: null,
    permissions: { contents: "write", metadata: "read" },
    events: [],
    repositorySelection: "all",
    createdAt: "2019-06-01T08:00:00.000Z",
    suspendedAt: "2024-01-10T08:00:00.000Z",
  },
];

const COPILOT = ["mara-okafor", "ana-ruiz", "ben-cho", "grace-kim"];

const SETTINGS: Record<string, string | boolean> = {
  "org.two_factor_requirement_enabled": false,
  "org.default_repository_permission": "write",
  "org.members_can_create_public_repositories": true,
  "org.members_can_fork_private_repositories": false,
  "org.secret_scanning_enabled_for_new_repositories": true,
  "org.secret_scanning_push_protection_enabled_for_new_repositories": false,
  "actions.enabled_repositories": "all",
  "actions.allowed_actions": "all",
  "actions.sha_pinning_required": false,
};

const hoursBefore = (iso: string, hours: number) =>
  new Date(Date.parse(iso) - hours * 3_600_000).toISOString();

/** How many repositories a demo organization of this config has. */
export function githubDemoRepositoryCount(config: { repositoryCount?: number | undefined }): number {
  return config.repositoryCount ?? GITHUB_DEMO_LIMITS.repositories.default;
}

/** What the revisions changed in an organization of this config (empty at revision 0). */
export function githubDemoDrift(config: {
  repositoryCount?: number | undefined;
  revision?: number | undefined;
}): TGithubDrift {
  return githubDriftAt(githubDemoRepositoryCount(config), GITHUB_DEMO_REPOS.length, config.revision ?? 0);
}

/**
 * The demo's repository at `index`: the curated ones first, then `service-NNNN`, as the
 * organization's revisions left it (`drift`, none: revision 0).
 */
export function githubDemoRepository(
  index: number,
  drift?: TGithubDrift,
): TGithubRepository & { secretAlerts: number } {
  const curated = GITHUB_DEMO_REPOS[index];
  const name = curated?.name ?? `service-${String(index).padStart(4, "0")}`;
  const keys: TGithubDeployKey[] = (
    curated?.keys ??
    (curated === undefined && index % 5 === 0 ? [{ id: `k${index}`, title: "ci-read", readOnly: true }] : [])
  ).map((k) => ({ ...k, createdAt: "2023-01-01T00:00:00.000Z", lastUsedAt: null }));
  const drifted = drift?.get(index);
  return {
    id: String(100_000 + index),
    name,
    fullName: `${GITHUB_DEMO_ORG}/${name}`,
    visibility: drifted?.public ? "public" : (curated?.visibility ?? "private"),
    fork: false,
    archived: curated?.archived ?? false,
    htmlUrl: `https://github.com/${GITHUB_DEMO_ORG}/${name}`,
    createdAt: hoursBefore("2024-01-01T00:00:00.000Z", index * 24),
    pushedAt: hoursBefore("2026-11-01T10:00:00.000Z", index),
    outsideCollaborators: [
      ...(curated?.collaborators ?? []).map((c) => ({
        id: String(50_000 + OUTSIDE.indexOf(c.login)),
        login: c.login,
        role: c.role,
      })),
      ...(drifted?.collaborators ?? []),
    ],
    deployKeys: keys,
    secretAlerts: curated?.secretAlerts ?? 0,
  };
}

/** The index of a demo repository from its full name, or null. */
export function githubDemoIndexOf(fullName: string, count: number): number | null {
  const prefix = `${GITHUB_DEMO_ORG}/`;
  if (!fullName.startsWith(prefix)) return null;
  const name = fullName.slice(prefix.length);
  const curated = GITHUB_DEMO_REPOS.findIndex((r) => r.name === name);
  const index = curated >= 0 ? curated : /^service-(\d{4,})$/.exec(name) ? Number(name.slice(8)) : -1;
  return index >= 0 && index < count && githubDemoRepository(index).fullName === fullName ? index : null;
}

export type TGithubDemoOptions = {
  repositoryCount?: number | undefined;
  /** The organization's revision (0 when connected; a sync's `demo.advance` moves it on). */
  revision?: number | undefined;
  overlay?: TDemoOverlayStore | undefined;
};

/** The demo organization's GitHub-shaped reads (what the real adapter would read from GitHub). */
export function createGithubDemoReads(opts: TGithubDemoOptions): TGithubAdapter {
  const count = githubDemoRepositoryCount(opts);
  const drift = githubDemoDrift(opts);
  const drifted = [...drift.values()].flatMap((d) => d.collaborators);
  const members: TGithubMember[] = MEMBERS.map((m, i) => ({
    id: String(1000 + i),
    login: m.login,
    role: m.owner ? "owner" : "member",
    mfaEnabled: m.mfa,
  }));
  const seats: TGithubCopilotSeat[] = COPILOT.map((login) => ({
    login,
    userId: String(1000 + MEMBERS.findIndex((m) => m.login === login)),
    planType: "business",
    createdAt: "2025-02-01T00:00:00.000Z",
    lastActivityAt: "2026-10-30T12:00:00.000Z",
    pendingCancellationDate: null,
  }));
  return {
    organization: async () => ({
      id: "77001",
      login: GITHUB_DEMO_ORG,
      name: "Northwind Labs",
      htmlUrl: `https://github.com/${GITHUB_DEMO_ORG}`,
    }),
    members: async function* () {
      yield* members;
    },
    outsideCollaborators: async function* () {
      for (const [i, login] of OUTSIDE.entries()) yield { id: String(50_000 + i), login, mfaEnabled: true };
      for (const c of new Map(drifted.map((d) => [d.login, d])).values())
        yield { id: c.id, login: c.login, mfaEnabled: null };
    },
    repositories: async function* () {
      for (let i = 0; i < count; i++) yield githubDemoRepository(i, drift);
    },
    teams: async function* () {
      yield {
        id: "31",
        slug: "engineering",
        name: "Engineering",
        privacy: "closed",
        permission: "push",
        parentSlug: null,
      };
      yield {
        id: "32",
        slug: "platform",
        name: "Platform",
        privacy: "closed",
        permission: "admin",
        parentSlug: "engineering",
      };
    },
    installations: async function* () {
      yield* INSTALLATIONS;
    },
    copilotSeats: async function* () {
      yield* seats;
    },
    tenantSettings: async (): Promise<TTenantSetting[]> =>
      Object.entries(SETTINGS).map(([key, value]) => ({
        key,
        value,
        source: key.startsWith("org.") ? "GET /orgs/{org}" : "GET /orgs/{org}/actions/permissions",
      })),
    checkAccess: async (): Promise<TAccessCheck[]> =>
      GITHUB_ACCESS.map(({ feature, permission, licence, impact }) => ({
        feature,
        permission,
        ...(licence ? { licence } : {}),
        impact,
        granted: true,
      })),
    coverageGaps: () => [],
  };
}

/** The demo GitHub organization as a source adapter, the sandbox's writes laid over it. */
export function createGithubDemoAdapter(opts: TGithubDemoOptions): TSourceAdapter {
  const reads = createGithubDemoReads(opts);
  const alerts = new Map<string, number>();
  const count = githubDemoRepositoryCount(opts);
  for (let i = 0; i < Math.min(count, GITHUB_DEMO_REPOS.length); i++) {
    const repo = githubDemoRepository(i);
    if (repo.secretAlerts > 0) alerts.set(repo.fullName, repo.secretAlerts);
  }
  const source = githubSourceAdapter(GITHUB_DEMO_ORG, reads, {
    secretAlerts: (fullName) => alerts.get(fullName) ?? 0,
    memberSince: ORG_CREATED,
  });
  return {
    ...source,
    workspace: async () => {
      const overlay = await loadOverlay(opts.overlay);
      if (overlay.accessRevoked)
        throw new SourceAuthError("demo organization: an owner uninstalled the GitHub App (Bad credentials)");
      return source.workspace();
    },
    files: async function* () {
      const overlay = await loadOverlay(opts.overlay);
      const keyed = keyedRepositories(overlay.entries);
      for await (const file of source.files()) {
        const overlaid =
          overlay.files.size === 0
            ? file
            : withVisibility(overlayFile(file, overlay.files.get(file.id), file.id));
        yield keyed.has(file.id) ? withDemoDeployKeys(overlay.entries, overlaid) : overlaid;
      }
    },
  };
}

/**
 * A repository's visibility as its permissions say after the sandbox's writes: a repository the
 * sandbox made public (a scenario) or private (a remediation) reads so in the inventory too.
 */
function withVisibility(file: TSourceFile): TSourceFile {
  const repository = file.repository;
  if (!repository) return file;
  const p = file.permissions.find((q) => q.id === VISIBILITY_PERMISSION_ID);
  const visibility = p?.type === "anyone" ? "public" : p?.type === "domain" ? "internal" : "private";
  return visibility === repository.visibility ? file : { ...file, repository: { ...repository, visibility } };
}
