import { generateKeyPairSync } from "node:crypto";
import { type TGithubPermissions } from "./fake-github-schema";

// The organization a fake GitHub serves: what an owner sees in the organization's settings, as
// plain data. `buildGithubFixture` makes a small deterministic one with one of everything a scan
// must notice; `repositories` grows it for paging.

export type TGithubFixtureUser = { id: number; login: string; name: string | null; twoFactor: boolean };

/** A repository role as `permission` filters and GitHub's `permissions` hash name it. */
export type TGithubRepoPermission = "admin" | "maintain" | "push" | "triage" | "pull";

export type TGithubFixtureRepo = {
  id: number;
  name: string;
  visibility: "public" | "private" | "internal";
  fork: boolean;
  archived: boolean;
  createdAt: string;
  pushedAt: string;
  /** Direct collaborators, by login (members or outside collaborators). */
  collaborators: Array<{ login: string; permission: TGithubRepoPermission }>;
  deployKeys: Array<{
    id: number;
    title: string;
    /** The public key (absent: one made up from the id). */
    key?: string;
    readOnly: boolean;
    createdAt: string;
    lastUsed: string | null;
  }>;
};

export type TGithubFixture = {
  org: { id: number; login: string; name: string };
  /** What `GET /orgs/{org}` shows an owner (or an app with Administration: read) only. */
  settings: {
    two_factor_requirement_enabled: boolean;
    default_repository_permission: "read" | "write" | "admin" | "none";
    members_can_create_public_repositories: boolean;
    members_can_fork_private_repositories: boolean;
    secret_scanning_enabled_for_new_repositories: boolean;
    secret_scanning_push_protection_enabled_for_new_repositories: boolean;
  };
  members: Array<{ user: TGithubFixtureUser; role: "admin" | "member" }>;
  outsideCollaborators: TGithubFixtureUser[];
  repositories: TGithubFixtureRepo[];
  teams: Array<{
    id: number;
    slug: string;
    name: string;
    privacy: "closed" | "secret";
    permission: string;
    parentSlug: string | null;
  }>;
  installations: Array<{
    id: number;
    appId: number;
    appSlug: string;
    clientId: string;
    permissions: TGithubPermissions;
    events: string[];
    repositorySelection: "all" | "selected";
    createdAt: string;
    suspendedAt: string | null;
  }>;
  actions: {
    enabled_repositories: "all" | "none" | "selected";
    allowed_actions: "all" | "local_only" | "selected";
    sha_pinning_required: boolean;
  };
  /**
   * Invitations sent by `PUT /repos/{owner}/{repo}/collaborators/{username}` to someone who is
   * not a collaborator yet: GitHub grants the access only when they accept (absent: none sent).
   */
  invitations?: Array<{ id: number; repo: string; login: string; permission: TGithubRepoPermission }>;
  /** Copilot seats; null when the organization has no Copilot Business or Enterprise. */
  copilot: Array<{
    login: string;
    planType: "business" | "enterprise";
    createdAt: string;
    lastActivityAt: string | null;
    pendingCancellationDate: string | null;
  }> | null;
};

/** A GitHub App: its id, the PKCS#1 private key GitHub hands out, and the public key the fake checks. */
export function generateGithubApp(appId = 424_242) {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    appId,
    privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

const user = (id: number, login: string, twoFactor = true): TGithubFixtureUser => ({
  id,
  login,
  name: login.replace(/-/g, " "),
  twoFactor,
});

const day = (n: number) => new Date(Date.UTC(2025, 0, 1 + n)).toISOString().replace(".000Z", "Z");

export function buildGithubFixture(opts: { repositories?: number } = {}): TGithubFixture {
  const owner = user(1001, "olivia-owner");
  const dev = user(1002, "dev-dan");
  const noTwoFactor = user(1003, "lax-lee", false);
  const contractor = user(2001, "contractor-carl");
  const auditor = user(2002, "auditor-ann", false);
  const named: TGithubFixtureRepo[] = [
    {
      id: 5001,
      name: "website",
      visibility: "public",
      fork: false,
      archived: false,
      createdAt: day(1),
      pushedAt: day(40),
      collaborators: [{ login: "contractor-carl", permission: "push" }],
      deployKeys: [
        { id: 7001, title: "netlify deploy", readOnly: false, createdAt: day(2), lastUsed: day(39) },
      ],
    },
    {
      id: 5002,
      name: "payments-api",
      visibility: "private",
      fork: false,
      archived: false,
      createdAt: day(3),
      pushedAt: day(41),
      collaborators: [
        { login: "contractor-carl", permission: "admin" },
        { login: "auditor-ann", permission: "pull" },
        { login: "dev-dan", permission: "maintain" },
      ],
      deployKeys: [{ id: 7002, title: "ci read", readOnly: true, createdAt: day(4), lastUsed: null }],
    },
    {
      id: 5003,
      name: "handbook",
      visibility: "internal",
      fork: false,
      archived: true,
      createdAt: day(5),
      pushedAt: day(6),
      collaborators: [],
      deployKeys: [],
    },
  ];
  const extra = Array.from(
    { length: Math.max(0, (opts.repositories ?? named.length) - named.length) },
    (_, i) => ({
      id: 6000 + i,
      name: `service-${String(i).padStart(5, "0")}`,
      visibility: (i % 10 === 0 ? "public" : "private") as TGithubFixtureRepo["visibility"],
      fork: i % 7 === 0,
      archived: false,
      createdAt: day(10 + (i % 300)),
      pushedAt: day(20 + (i % 300)),
      collaborators: i % 25 === 0 ? [{ login: "contractor-carl", permission: "pull" as const }] : [],
      deployKeys: [],
    }),
  );
  return {
    org: { id: 9001, login: "acme", name: "Acme Inc." },
    settings: {
      two_factor_requirement_enabled: false,
      default_repository_permission: "write",
      members_can_create_public_repositories: true,
      members_can_fork_private_repositories: false,
      secret_scanning_enabled_for_new_repositories: true,
      secret_scanning_push_protection_enabled_for_new_repositories: false,
    },
    members: [
      { user: owner, role: "admin" },
      { user: dev, role: "member" },
      { user: noTwoFactor, role: "member" },
    ],
    outsideCollaborators: [contractor, auditor],
    repositories: [...named, ...extra],
    teams: [
      {
        id: 301,
        slug: "engineering",
        name: "Engineering",
        privacy: "closed",
        permission: "pull",
        parentSlug: null,
      },
      {
        id: 302,
        slug: "payments",
        name: "Payments",
        privacy: "secret",
        permission: "push",
        parentSlug: "engineering",
      },
    ],
    installations: [
      {
        id: 88,
        appId: 424_242,
        appSlug: "posture-scanner",
        clientId: "Iv23liPosture",
        permissions: {
          metadata: "read",
          members: "read",
          administration: "read",
          organization_administration: "read",
        },
        events: [],
        repositorySelection: "all",
        createdAt: day(0),
        suspendedAt: null,
      },
      {
        id: 89,
        appId: 31_337,
        appSlug: "ai-code-reviewer",
        clientId: "Iv23liReviewer",
        permissions: { contents: "write", pull_requests: "write", metadata: "read" },
        events: ["pull_request", "push"],
        repositorySelection: "all",
        createdAt: day(12),
        suspendedAt: null,
      },
    ],
    actions: { enabled_repositories: "all", allowed_actions: "all", sha_pinning_required: false },
    copilot: [
      {
        login: "dev-dan",
        planType: "business",
        createdAt: day(30),
        lastActivityAt: day(44),
        pendingCancellationDate: null,
      },
      {
        login: "lax-lee",
        planType: "business",
        createdAt: day(31),
        lastActivityAt: null,
        pendingCancellationDate: day(60),
      },
    ],
  };
}
