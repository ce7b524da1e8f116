import { afterEach, describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import { ALL_CONNECTOR_SCOPES, startFakeGoogle, type TFakeGoogle } from "../../../fakes/src/fake-google";
import { buildGoogleFixture, generateServiceAccount } from "../../../fakes/src/google-fixture";
import { GOOGLE_FEATURE, GOOGLE_SCOPE } from "./access";
import { createGoogleWorkspaceAdapter } from "./adapter";
import { type TGoogleCredentials } from "./auth";

// Reading the whole tenant: every user's My Drive as that user, every shared drive through one of
// its members, Drive labels, and what could not be read reported as coverage gaps.

const TOKEN = "static-admin-token";
const ACCOUNT = generateServiceAccount("admin@acme.test");

let fake: TFakeGoogle | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function start(opts: Partial<Parameters<typeof startFakeGoogle>[0]> = {}) {
  fake = await startFakeGoogle({
    fixture: buildGoogleFixture(),
    accessToken: TOKEN,
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    ...opts,
  });
  return fake;
}

function adapterFor(
  server: TFakeGoogle,
  opts: { http?: THttpOptions; credentials?: TGoogleCredentials; concurrency?: number } = {},
) {
  return createGoogleWorkspaceAdapter({
    credentials: opts.credentials ?? ACCOUNT.credentials,
    endpoints: server.endpoints,
    http: opts.http,
    concurrency: opts.concurrency,
  });
}

const fileLists = (server: TFakeGoogle) => server.requests.filter((r) => r.path === "/drive/v3/files");

describe("every user's files through domain-wide delegation", () => {
  it("finds a file only its owner can see, by listing each active user's own files as them", async () => {
    fake = await start();
    const adapter = adapterFor(fake);
    const files = await collect(adapter.files());
    const ids = files.map((f) => f.id);
    expect(ids).toContain("f-private");
    expect(files.find((f) => f.id === "f-private")).toMatchObject({
      ownerEmail: "alice@acme.test",
      driveId: null,
      permissions: [{ id: "p-alice", type: "user", role: "owner", emailAddress: "alice@acme.test" }],
    });
    // Each file once, though f-shared is also in Alice's "shared with me".
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(
      ["f-drive", "f-external", "f-internal", "f-legal", "f-private", "f-public", "f-shared"].sort(),
    );
    // The users asked for are the active ones (not suspended Bob), each as themselves.
    const userLists = fileLists(fake).filter((r) => r.query.get("corpora") === "user");
    expect(userLists.every((r) => r.query.get("q") === "'me' in owners and trashed = false")).toBe(true);
    const driveGrants = fake.grants
      .filter((g) => g.scopes.includes(GOOGLE_SCOPE.drive))
      .map((g) => g.subject);
    expect(new Set(driveGrants)).toEqual(new Set(["admin@acme.test", "alice@acme.test", "dave@acme.test"]));
  });

  it("keeps the single-caller listing for a bare access token, and says what it misses", async () => {
    fake = await start();
    const adapter = adapterFor(fake, { credentials: { accessToken: TOKEN } });
    const ids = (await collect(adapter.files())).map((f) => f.id);
    // The admin sees their own files and the drive they are in, never Alice's private file.
    expect(ids.sort()).toEqual(["f-drive", "f-external", "f-shared"]);
    expect(adapter.coverageGaps()).toContainEqual({
      feature: GOOGLE_FEATURE.files,
      missing: "a service account with domain-wide delegation",
      detail: expect.stringContaining("only the files its own user can see are read"),
    });
    expect(fileLists(fake)[0]?.query.get("corpora")).toBe("allDrives");
  });

  it("reports suspended users, users with Drive turned off and refused impersonations as gaps", async () => {
    fake = await start({ refuseImpersonation: ["alice@acme.test"] });
    const adapter = adapterFor(fake);
    const ids = (await collect(adapter.files())).map((f) => f.id);
    // Alice's files are lost; the admin's and the shared drives' are not.
    expect(ids).not.toContain("f-private");
    expect(ids).toEqual(expect.arrayContaining(["f-external", "f-shared", "f-drive"]));
    const gaps = adapter.coverageGaps();
    expect(gaps).toContainEqual({
      feature: GOOGLE_FEATURE.files,
      missing: "suspended users' My Drive files",
      detail: expect.stringContaining("(1: bob@acme.test)"),
    });
    expect(gaps).toContainEqual({
      feature: GOOGLE_FEATURE.files,
      missing: "these users' My Drive files",
      detail: expect.stringMatching(/disabled Drive apps.*\(1: dave@acme\.test\)/),
    });
    expect(gaps).toContainEqual({
      feature: GOOGLE_FEATURE.files,
      missing: "these users' My Drive files",
      detail: expect.stringMatching(/Invalid email or User ID.*\(1: alice@acme\.test\)/),
    });
  });

  it("retries per-user rate limits (403 userRateLimitExceeded) and 429 Retry-After without losing the user", async () => {
    fake = await start();
    const body = {
      error: {
        code: 403,
        message: "User Rate Limit Exceeded",
        errors: [
          { domain: "usageLimits", reason: "userRateLimitExceeded", message: "User Rate Limit Exceeded" },
        ],
      },
    };
    fake.injectFault({ status: 403, count: 2, pathPrefix: "/drive/v3/files", body });
    fake.injectFault({ status: 429, count: 1, retryAfter: 2, pathPrefix: "/drive/v3/files" });
    const { delays, http } = recordingSleep();
    const adapter = adapterFor(fake, { http, concurrency: 1 });
    const ids = (await collect(adapter.files())).map((f) => f.id);
    expect(ids).toHaveLength(7);
    expect(delays).toHaveLength(3);
    expect(delays).toContain(2000);
    expect(adapter.coverageGaps().filter((g) => g.missing === "these users' My Drive files")).toHaveLength(1);
  });

  it("reads at most `concurrency` users at once, and a slow user does not hold the others", async () => {
    fake = await start({ fixture: buildGoogleFixture({ extraUsers: 6 }) });
    let inFlight = 0;
    let peak = 0;
    const slowFetch: typeof fetch = async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      const listing = url.pathname === "/drive/v3/files" && url.searchParams.get("corpora") === "user";
      if (!listing) return fetch(input, init);
      inFlight++;
      peak = Math.max(peak, inFlight);
      const bearer = new Headers(init?.headers).get("authorization");
      const issued = fake?.issuedTokens.findIndex((t) => bearer === `Bearer ${t}`) ?? -1;
      const slow = fake?.grants[issued]?.subject === "admin@acme.test";
      await new Promise((resolve) => setTimeout(resolve, slow ? 400 : 20));
      try {
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const adapter = adapterFor(fake, { http: { fetch: slowFetch }, concurrency: 2 });
    const ids = (await collect(adapter.files())).map((f) => f.id);
    expect(peak).toBe(2);
    // The admin (first in the Directory) is slow: Alice's files come out before theirs.
    expect(ids.indexOf("f-private")).toBeLessThan(ids.indexOf("f-external"));
  });
});

describe("shared drives through their members", () => {
  it("reads a drive the admin is not a member of as one of its internal members, never aborting", async () => {
    fake = await start();
    const adapter = adapterFor(fake);
    const files = await collect(adapter.files());
    expect(files.find((f) => f.id === "f-legal")).toMatchObject({
      driveId: "d-legal",
      ownerEmail: "alice@acme.test",
      permissions: [
        { id: "p-legal-alice", type: "user", role: "organizer", emailAddress: "alice@acme.test" },
        { id: "anyoneWithLink", type: "anyone", role: "reader" },
      ],
    });
    const drives = await collect(adapter.sharedDrives());
    expect(drives.map((d) => [d.id, d.fileCount])).toEqual([
      ["d-eng", 1],
      ["d-fin", 0],
      ["d-legal", 1],
    ]);
    // files.list never carries useDomainAdminAccess (Drive refuses it); drives and members do.
    expect(fileLists(fake).some((r) => r.query.has("useDomainAdminAccess"))).toBe(false);
    expect(fake.requests.find((r) => r.path === "/drive/v3/drives")?.query.get("useDomainAdminAccess")).toBe(
      "true",
    );
    // Counted while the files were read: no second listing of each drive.
    expect(fileLists(fake).filter((r) => r.query.get("driveId") === "d-legal")).toHaveLength(1);
    // The outside counsel, an organizer too, is never impersonated.
    expect(fake.grants.some((g) => g.subject === "counsel@lawfirm.example")).toBe(false);
  });

  it("gives a drive whose only member is suspended a gap and a count of 0", async () => {
    fake = await start();
    const adapter = adapterFor(fake);
    const drives = await collect(adapter.sharedDrives());
    expect(drives.find((d) => d.id === "d-fin")).toMatchObject({ name: "Finance", fileCount: 0 });
    expect(adapter.coverageGaps()).toContainEqual({
      feature: GOOGLE_FEATURE.sharedDrives,
      missing: "a member to read these shared drives' files as",
      detail: expect.stringMatching(/could be impersonated.*\(1: Finance\)/),
    });
  });

  it("with a bare access token, counts only the drives its user is in and reports the others", async () => {
    fake = await start();
    const adapter = adapterFor(fake, { credentials: { accessToken: TOKEN } });
    const drives = await collect(adapter.sharedDrives());
    expect(drives.map((d) => [d.id, d.fileCount])).toEqual([
      ["d-eng", 1],
      ["d-fin", 0],
      ["d-legal", 0],
    ]);
    expect(adapter.coverageGaps()).toContainEqual({
      feature: GOOGLE_FEATURE.sharedDrives,
      missing: "a member to read these shared drives' files as",
      detail: expect.stringMatching(/not a member.*\(2: Finance, Legal\)/),
    });
  });

  it("turns a refused shared-drive listing into a gap", async () => {
    fake = await start();
    fake.injectFault({ status: 403, count: 1, pathPrefix: "/drive/v3/drives" });
    const adapter = adapterFor(fake);
    expect(await collect(adapter.sharedDrives())).toEqual([]);
    expect(adapter.coverageGaps()).toContainEqual({
      feature: GOOGLE_FEATURE.sharedDrives,
      missing: `${GOOGLE_SCOPE.drive} as a domain administrator`,
      detail: expect.stringContaining("HTTP 403"),
    });
  });
});

describe("Drive labels", () => {
  it("puts each file's label on TSourceFile.label: the chosen choice, else the label's title", async () => {
    fake = await start();
    const adapter = adapterFor(fake);
    const files = await collect(adapter.files());
    const labels = Object.fromEntries(files.map((f) => [f.id, f.label]));
    expect(labels).toEqual({
      "f-public": null,
      "f-external": "Internal",
      "f-internal": null,
      "f-shared": null,
      "f-private": "Confidential",
      "f-drive": null,
      "f-legal": "Legal hold",
    });
    const labelList = fake.requests.find((r) => r.path === "/v2/labels");
    expect(Object.fromEntries(labelList?.query ?? [])).toEqual({
      view: "LABEL_VIEW_FULL",
      publishedOnly: "true",
      useAdminAccess: "true",
      pageSize: "200",
    });
    // The draft label is not published, so it is never asked for on files.
    const asked = fileLists(fake).map((r) => r.query.get("includeLabels"));
    expect(new Set(asked)).toEqual(new Set(["lblClassification01,lblLegalHold02"]));
    expect(fileLists(fake).every((r) => r.query.get("fields")?.includes("labelInfo"))).toBe(true);
    expect(fake.requests.filter((r) => r.path === "/v2/labels")).toHaveLength(1);
  });

  it("without the labels scope, reads files without labels and reports the gap", async () => {
    fake = await start({ authorizedScopes: ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.labels) });
    const adapter = adapterFor(fake);
    const files = await collect(adapter.files());
    expect(files).toHaveLength(7);
    expect(files.every((f) => f.label === null)).toBe(true);
    expect(fileLists(fake).some((r) => r.query.has("includeLabels"))).toBe(false);
    expect(adapter.coverageGaps()).toContainEqual({
      feature: GOOGLE_FEATURE.labels,
      missing: GOOGLE_SCOPE.labels,
      detail: expect.stringContaining("Client is unauthorized to retrieve access tokens"),
    });
  });

  it("with a token lacking the label-admin scope, the Labels API's 403 is a gap too", async () => {
    fake = await start({ accessTokenScopes: ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.labels) });
    const adapter = adapterFor(fake, { credentials: { accessToken: TOKEN } });
    const files = await collect(adapter.files());
    expect(files.length).toBeGreaterThan(0);
    expect(adapter.coverageGaps()).toContainEqual({
      feature: GOOGLE_FEATURE.labels,
      missing: GOOGLE_SCOPE.labels,
      detail: expect.stringContaining("insufficient authentication scopes"),
    });
  });
});

describe("app grants without their scopes", () => {
  it("lists no grant and reports the gap without the tokens scope; dates fall back without Reports", async () => {
    fake = await start({
      authorizedScopes: ALL_CONNECTOR_SCOPES.filter(
        (s) => s !== GOOGLE_SCOPE.tokens && s !== GOOGLE_SCOPE.reports,
      ),
    });
    const adapter = adapterFor(fake);
    expect(await collect(adapter.appGrants())).toEqual([]);
    expect(adapter.coverageGaps().map((g) => [g.feature, g.missing])).toEqual([
      [GOOGLE_FEATURE.appGrants, GOOGLE_SCOPE.reports],
      [GOOGLE_FEATURE.appGrants, GOOGLE_SCOPE.tokens],
    ]);
  });

  it("keeps the grants, dated by the user's creation, when only Reports is missing", async () => {
    fake = await start({ authorizedScopes: ALL_CONNECTOR_SCOPES.filter((s) => s !== GOOGLE_SCOPE.reports) });
    const grants = await collect(adapterFor(fake).appGrants());
    expect(grants.find((g) => g.label === "ChatGPT")?.grantedAt).toBe("2021-02-01T00:00:00.000Z");
  });
});
