import { beforeEach, describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import { buildGithubFixture, generateGithubApp } from "../../../fakes/src/fake-github-fixture";
import { createTestClock, useFakeGithub, type TTestClock } from "../../../fakes/src/fake-github-harness";
import { type TFakeGithub } from "../../../fakes/src/fake-github";
import { GITHUB_OPERATIONS, matchOperation } from "../../../fakes/src/fake-github-schema";
import { SourceUnavailableError } from "../types";
import { createGithubAdapter } from "./adapter";
import { GITHUB_WRITE_REQUIREMENTS } from "./write";

// The adapter against the fake GitHub: every test also fails when the adapter sent a request the
// description does not allow (the harness checks the fake's refusals after each test).

const APP = generateGithubApp();
let clock: TTestClock;
beforeEach(() => {
  clock = createTestClock();
});
const start = useFakeGithub(APP, () => clock);

const adapterFor = (fake: TFakeGithub) =>
  createGithubAdapter({
    org: "acme",
    credentials: { appId: APP.appId, privateKey: APP.privateKey, installationId: 88 },
    baseUrl: fake.url,
    http: clock.http,
  });

const pathsOf = (fake: TFakeGithub, prefix: string) =>
  fake.requests.filter((r) => r.path.startsWith(prefix)).map((r) => r.url);

describe("the GitHub adapter", () => {
  it("reads the organization: repositories, people, teams, apps, Copilot and settings", async () => {
    const fake = await start();
    const github = adapterFor(fake);
    expect(await github.organization()).toEqual({
      id: "9001",
      login: "acme",
      name: "Acme Inc.",
      htmlUrl: "https://github.com/acme",
    });
    expect(await collect(github.repositories())).toEqual([
      {
        id: "5003",
        name: "handbook",
        fullName: "acme/handbook",
        visibility: "internal",
        fork: false,
        archived: true,
        htmlUrl: "https://github.com/acme/handbook",
        createdAt: "2025-01-06T00:00:00Z",
        pushedAt: "2025-01-07T00:00:00Z",
        outsideCollaborators: [],
        deployKeys: [],
      },
      {
        id: "5002",
        name: "payments-api",
        fullName: "acme/payments-api",
        visibility: "private",
        fork: false,
        archived: false,
        htmlUrl: "https://github.com/acme/payments-api",
        createdAt: "2025-01-04T00:00:00Z",
        pushedAt: "2025-02-11T00:00:00Z",
        outsideCollaborators: [
          { id: "2001", login: "contractor-carl", role: "admin" },
          { id: "2002", login: "auditor-ann", role: "read" },
        ],
        deployKeys: [
          {
            id: "7002",
            title: "ci read",
            readOnly: true,
            createdAt: "2025-01-05T00:00:00Z",
            lastUsedAt: null,
          },
        ],
      },
      {
        id: "5001",
        name: "website",
        fullName: "acme/website",
        visibility: "public",
        fork: false,
        archived: false,
        htmlUrl: "https://github.com/acme/website",
        createdAt: "2025-01-02T00:00:00Z",
        pushedAt: "2025-02-10T00:00:00Z",
        outsideCollaborators: [{ id: "2001", login: "contractor-carl", role: "write" }],
        deployKeys: [
          {
            id: "7001",
            title: "netlify deploy",
            readOnly: false,
            createdAt: "2025-01-03T00:00:00Z",
            lastUsedAt: "2025-02-09T00:00:00Z",
          },
        ],
      },
    ]);
    expect(pathsOf(fake, "/repos/acme/payments-api")).toEqual([
      "/repos/acme/payments-api/collaborators?affiliation=outside&per_page=100",
      "/repos/acme/payments-api/keys?per_page=100",
    ]);
    expect(await collect(github.members())).toEqual([
      { id: "1001", login: "olivia-owner", role: "owner", mfaEnabled: true },
      { id: "1002", login: "dev-dan", role: "member", mfaEnabled: true },
      { id: "1003", login: "lax-lee", role: "member", mfaEnabled: false },
    ]);
    expect(await collect(github.outsideCollaborators())).toEqual([
      { id: "2001", login: "contractor-carl", mfaEnabled: true },
      { id: "2002", login: "auditor-ann", mfaEnabled: false },
    ]);
    expect(await collect(github.teams())).toEqual([
      {
        id: "301",
        slug: "engineering",
        name: "Engineering",
        privacy: "closed",
        permission: "pull",
        parentSlug: null,
      },
      {
        id: "302",
        slug: "payments",
        name: "Payments",
        privacy: "secret",
        permission: "push",
        parentSlug: "engineering",
      },
    ]);
    const apps = await collect(github.installations());
    expect(apps.map((a) => [a.id, a.appSlug, a.permissions, a.events, a.suspendedAt])).toEqual([
      [
        "88",
        "posture-scanner",
        { metadata: "read", members: "read", administration: "read", organization_administration: "read" },
        [],
        null,
      ],
      [
        "89",
        "ai-code-reviewer",
        { contents: "write", pull_requests: "write", metadata: "read" },
        ["pull_request", "push"],
        null,
      ],
    ]);
    expect(await collect(github.copilotSeats())).toEqual([
      {
        login: "dev-dan",
        userId: "1002",
        planType: "business",
        createdAt: "2025-01-31T00:00:00Z",
        lastActivityAt: "2025-02-14T00:00:00Z",
        pendingCancellationDate: null,
      },
      {
        login: "lax-lee",
        userId: "1003",
        planType: "business",
        createdAt: "2025-02-01T00:00:00Z",
        lastActivityAt: null,
        pendingCancellationDate: "2025-03-02T00:00:00Z",
      },
    ]);
    const org = "GET /orgs/{org}";
    const actions = "GET /orgs/{org}/actions/permissions";
    expect(await github.tenantSettings()).toEqual([
      { key: "org.two_factor_requirement_enabled", value: false, source: org },
      { key: "org.default_repository_permission", value: "write", source: org },
      { key: "org.members_can_create_public_repositories", value: true, source: org },
      { key: "org.members_can_fork_private_repositories", value: false, source: org },
      { key: "org.secret_scanning_enabled_for_new_repositories", value: true, source: org },
      { key: "org.secret_scanning_push_protection_enabled_for_new_repositories", value: false, source: org },
      { key: "actions.enabled_repositories", value: "all", source: actions },
      { key: "actions.allowed_actions", value: "all", source: actions },
      { key: "actions.sha_pinning_required", value: false, source: actions },
    ]);
    expect((await github.checkAccess()).map((c) => [c.permission, c.granted])).toEqual([
      ["metadata: read", true],
      ["members: read", true],
      ["administration: read", true],
      ["organization_administration: read", true],
      ["organization_copilot_seat_management: read", true],
    ]);
    expect(github.coverageGaps()).toEqual([]);
    // One installation token served the whole read.
    expect(fake.tokens).toHaveLength(1);
    // It made every read operation of the extract (remediation's are the writer's, source.int.test.ts),
    // and (the harness checks) none the description refuses.
    const used = new Set(fake.requests.map((r) => matchOperation(r.method, r.path)?.op.operationId));
    const writerOps = new Set(GITHUB_WRITE_REQUIREMENTS.flatMap((r) => r.operations));
    expect([...used].sort()).toEqual(
      GITHUB_OPERATIONS.filter((op) => !writerOps.has(`${op.method} ${op.path}`))
        .map((op) => op.operationId)
        .sort(),
    );
  });

  it("retries a 5xx with back-off and gives up after five attempts", async () => {
    const fake = await start();
    fake.injectFault({ status: 502, count: 2, pathPrefix: "/orgs/acme/teams" });
    expect((await collect(adapterFor(fake).teams())).map((t) => t.slug)).toEqual(["engineering", "payments"]);
    expect(clock.delays).toEqual([250, 500]);
    fake.injectFault({ status: 503, count: 5, pathPrefix: "/orgs/acme/teams" });
    await expect(collect(adapterFor(fake).teams())).rejects.toThrow(
      new SourceUnavailableError("GitHub unavailable after 5 attempts (HTTP 503)"),
    );
  });

  it("follows Link rel=next across pages of 100", async () => {
    const fake = await start({ fixture: buildGithubFixture({ repositories: 250 }) });
    const repos = await collect(adapterFor(fake).repositories());
    expect(repos).toHaveLength(250);
    expect(new Set(repos.map((r) => r.id)).size).toBe(250);
    expect(repos.slice(0, 2).map((r) => r.name)).toEqual(["handbook", "payments-api"]);
    expect(repos.at(-1)?.name).toBe("website");
    expect(pathsOf(fake, "/orgs/acme/repos")).toEqual([
      "/orgs/acme/repos?type=all&sort=full_name&per_page=100",
      "/orgs/acme/repos?type=all&sort=full_name&per_page=100&page=2",
      "/orgs/acme/repos?type=all&sort=full_name&per_page=100&page=3",
    ]);
    // service-00000, -00025 … -00225 have contractor-carl (pull) as their outside collaborator.
    expect(repos.filter((r) => r.outsideCollaborators.some((c) => c.role === "read")).length).toBe(11);
  });

  it("waits out the primary rate limit until x-ratelimit-reset, then carries on", async () => {
    const fake = await start({ rateLimit: { limit: 4, windowSec: 120 } });
    const startedAt = clock.now();
    const repos = await collect(adapterFor(fake).repositories());
    expect(repos.map((r) => r.name)).toEqual(["handbook", "payments-api", "website"]);
    // 8 calls: the outside collaborators, the repositories, and each repository's collaborators and keys.
    expect(fake.throttled.map((t) => t.kind)).toEqual(["primary"]);
    // The window opened with the first call and resets 120 s later; GitHub asks for no retry before it.
    expect(clock.delays).toEqual([121_000]);
    expect(clock.now() - startedAt).toBe(121_000);
    const throttled = fake.requests.filter((r) => r.path.startsWith("/repos/")).length;
    expect(throttled).toBe(7);
  });

  it("gives up with SourceUnavailableError when the reset is further away than it may wait", async () => {
    const fake = await start({ rateLimit: { limit: 2, windowSec: 3600 } });
    const error: unknown = await collect(adapterFor(fake).repositories()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceUnavailableError);
    expect((error as Error).message).toBe(
      "GitHub rate limit: GET /repos/acme/handbook/collaborators may not be retried for 3601 s (reset at 2025-06-01T13:00:00.000Z)",
    );
    expect(clock.delays).toEqual([]);
  });

  it("honours secondary limits: retry-after when sent, else a minute", async () => {
    const fake = await start();
    const github = adapterFor(fake);
    fake.secondaryLimit({ count: 1, retryAfter: 7 });
    fake.secondaryLimit({ count: 1, status: 429 });
    expect((await collect(github.teams())).map((t) => t.slug)).toEqual(["engineering", "payments"]);
    expect(fake.throttled.map((t) => t.kind)).toEqual(["secondary", "secondary"]);
    expect(clock.delays).toEqual([7000, 60_000]);
    expect(pathsOf(fake, "/orgs/acme/teams")).toEqual([
      "/orgs/acme/teams?per_page=100",
      "/orgs/acme/teams?per_page=100",
      "/orgs/acme/teams?per_page=100",
    ]);
  });

  it("recovers from the installation token expiring mid-listing with one fresh token", async () => {
    const fake = await start({ fixture: buildGithubFixture({ repositories: 250 }) });
    const seen: string[] = [];
    for await (const repo of adapterFor(fake).repositories()) {
      seen.push(repo.id);
      if (seen.length === 100) fake.expireTokens();
    }
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    expect(fake.tokens).toHaveLength(2);
    // The page-2 request was refused once (401 Bad credentials), then sent again with the new token.
    const page2 = fake.requests.filter((r) => r.url.endsWith("&page=2") && r.path === "/orgs/acme/repos");
    expect(page2.map((r) => String(r.headers.authorization))).toEqual([
      `Bearer ${fake.tokens[0]?.token ?? ""}`,
      `Bearer ${fake.tokens[1]?.token ?? ""}`,
    ]);
  });

  it("turns a permission the installation lacks into coverage gaps, not a failed scan", async () => {
    const fake = await start({ permissions: { 88: { metadata: "read" } } });
    const github = adapterFor(fake);
    const repos = await collect(github.repositories());
    expect(repos.map((r) => [r.name, r.outsideCollaborators.length, r.deployKeys])).toEqual([
      ["handbook", 0, null],
      ["payments-api", 2, null],
      ["website", 1, null],
    ]);
    // Deploy keys are asked for once: the refusal is the installation's, for every repository.
    expect(fake.requests.filter((r) => r.path.endsWith("/keys"))).toHaveLength(1);
    expect(await collect(github.members())).toEqual([]);
    expect(await collect(github.installations())).toEqual([]);
    expect(await collect(github.copilotSeats())).toEqual([]);
    const settings = await github.tenantSettings();
    expect(settings.filter((s) => "unavailable" in s).map((s) => s.key)).toHaveLength(9);
    expect(github.coverageGaps().map((g) => [g.feature, g.missing])).toEqual([
      ["Members, outside collaborators and teams", "members=read"],
      ["Deploy keys", "administration=read"],
      [
        "Organization settings, app installations and Actions permissions",
        "organization_administration=read",
      ],
      ["Copilot seats", "organization_administration=read; organization_copilot_seat_management=read"],
    ]);
    expect((await github.checkAccess()).filter((c) => !c.granted).map((c) => c.permission)).toEqual([
      "members: read",
      "administration: read",
      "organization_administration: read",
      "organization_copilot_seat_management: read",
    ]);
  });

  it("records an organization without Copilot Business as a gap", async () => {
    const fake = await start({ fixture: { ...buildGithubFixture(), copilot: null } });
    const github = adapterFor(fake);
    expect(await collect(github.copilotSeats())).toEqual([]);
    expect(github.coverageGaps()).toEqual([
      {
        feature: "Copilot seats",
        missing: "HTTP 404",
        detail: "Copilot seats were not read (no permission, or no Copilot Business or Enterprise)",
      },
    ]);
  });
});
