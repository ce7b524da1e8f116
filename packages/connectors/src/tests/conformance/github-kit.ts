import { buildGithubFixture, generateGithubApp } from "../../../../fakes/src/fake-github-fixture";
import { startFakeGithub } from "../../../../fakes/src/fake-github";
import { createTestClock } from "../../../../fakes/src/fake-github-harness";
import type { TGithubPermissions } from "../../../../fakes/src/fake-github-schema";
import { createSourceAdapter, createSourceWriter, type TCreateSourceAdapterInput } from "../../factory";
import type { TSourceKit } from "./kit";

// GitHub in the conformance suite: the fake REST API (repositories paged by `page`/`per_page` with
// `Link: rel="next"`, every request checked against api.github.com.json) and a GitHub App's
// installation tokens. Throttling is GitHub's secondary rate limit answered 429 with Retry-After;
// token expiry its 401 "Bad credentials" for an installation token past its hour. The write
// removes an outside collaborator: undo invites them back, and access returns when they accept.

/** The adapter's `per_page` (GitHub's maximum): a page of the organization's repositories. */
const PAGE_SIZE = 100;
const NAMED_REPOSITORIES = buildGithubFixture().repositories.length;

const WRITER: TGithubPermissions = {
  metadata: "read",
  members: "read",
  administration: "write",
  organization_administration: "read",
};

let app: ReturnType<typeof generateGithubApp> | null = null;
const appOf = () => (app ??= generateGithubApp());

export const GITHUB_KIT: TSourceKit = {
  type: "github",
  label: "GitHub",
  pageSize: PAGE_SIZE,
  skip: {
    changeFeed:
      'GitHub has no change feed yet: every scan reads the organization whole (`fullReason: "no_feed"`, docs/sources/github.md); incremental rescans from the audit log or events are still to come (issue 31)',
  },
  start: async ({ resources }) => {
    const gh = appOf();
    const clock = createTestClock();
    const fixture = buildGithubFixture({ repositories: NAMED_REPOSITORIES + resources });
    const fake = await startFakeGithub({
      fixture,
      apps: [{ appId: gh.appId, publicKey: gh.publicKey }],
      now: clock.now,
      // The scanning app with administration: write, which remediation's writes need.
      permissions: { 88: WRITER },
    });
    const input: TCreateSourceAdapterInput = {
      type: "github",
      mode: "real",
      connectorId: "con_conformance_github",
      credentials: { appId: gh.appId, privateKey: gh.privateKey, installationId: 88 },
      config: { organization: "acme" },
      endpoints: { github: { baseUrl: fake.url } },
      http: clock.http,
    };
    const seeded = fixture.repositories.slice(NAMED_REPOSITORIES).map((r) => `acme/${r.name}`);
    return {
      adapter: () => createSourceAdapter(input),
      writer: () => createSourceWriter(input),
      seeded,
      laterPages: () =>
        fake.requests.filter((r) => r.path === "/orgs/acme/repos" && Number(r.query.get("page") ?? 1) > 1)
          .length,
      throttle: ({ count, retryAfterSec }) =>
        fake.secondaryLimit({ count, retryAfter: retryAfterSec, status: 429 }),
      requests: () => fake.requests.length,
      waits: () => clock.delays,
      expireTokens: fake.expireTokens,
      tokensIssued: () =>
        fake.tokens.map((t) => `${t.installationId} ${JSON.stringify(Object.entries(t.permissions).sort())}`),
      change: () => {
        throw new Error("GitHub has no change feed (its kit skips the check)");
      },
      write: {
        file: { id: "acme/website", driveId: null, ownerEmail: "owners@acme.github" },
        permissionId: "contractor-carl",
        action: "remove_external_user",
      },
      // The invitee accepts the invitation undo sent (PATCH /user/repository_invitations/{id}, a
      // call of the invitee's own, not the app's): they are a collaborator again, at its role.
      settleRestore: () => {
        for (const invitation of fixture.invitations?.splice(0) ?? []) {
          const repo = fixture.repositories.find((r) => r.name === invitation.repo);
          repo?.collaborators.push({ login: invitation.login, permission: invitation.permission });
        }
      },
      refused: () => fake.refused,
      close: fake.close,
    };
  },
};
