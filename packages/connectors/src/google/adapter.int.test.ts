import { afterEach, describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import { startFakeGoogle, type TFakeGoogle } from "../../../fakes/src/fake-google";
import { buildGoogleFixture, generateServiceAccount } from "../../../fakes/src/google-fixture";
import { SourceAuthError, SourceUnavailableError } from "../types";
import { createGoogleWorkspaceAdapter } from "./adapter";
import { type TGoogleCredentials } from "./auth";

const TOKEN = "static-test-token";
// One key pair for the file: generating RSA keys is slow.
const ACCOUNT = generateServiceAccount("admin@acme.test");

let fake: TFakeGoogle | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

/** A fake that knows the service account (delegated every connector scope) and a pre-shared token. */
async function start(
  opts: { pageSize?: number; extraUsers?: number; extraFiles?: number } & Partial<
    Parameters<typeof startFakeGoogle>[0]
  > = {},
) {
  fake = await startFakeGoogle({
    fixture: buildGoogleFixture({ extraUsers: opts.extraUsers, extraFiles: opts.extraFiles }),
    accessToken: TOKEN,
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    ...opts,
  });
  return fake;
}

/** A fake that knows the service accounts' public keys (and no pre-shared access token). */
async function startWithServiceAccounts(...accounts: Array<ReturnType<typeof generateServiceAccount>>) {
  fake = await startFakeGoogle({
    fixture: buildGoogleFixture(),
    serviceAccounts: accounts.map((a) => ({
      clientEmail: a.credentials.clientEmail,
      publicKey: a.publicKey,
    })),
  });
  return fake;
}

function adapterFor(
  server: TFakeGoogle,
  http: THttpOptions = {},
  credentials: TGoogleCredentials = ACCOUNT.credentials,
) {
  return createGoogleWorkspaceAdapter({ credentials, endpoints: server.endpoints, http });
}

describe("Google Workspace adapter against the fake APIs", () => {
  it("reads users, including admin, 2SV, suspension and never-signed-in", async () => {
    fake = await start();
    const users = await collect(adapterFor(fake).users());
    expect(users.map((u) => u.email)).toEqual([
      "admin@acme.test",
      "alice@acme.test",
      "bob@acme.test",
      "dave@acme.test",
    ]);
    expect(users[0]).toEqual({
      id: "u-admin",
      email: "admin@acme.test",
      name: "Ada Admin",
      isAdmin: true,
      mfaEnabled: true,
      suspended: false,
      lastLoginAt: "2025-05-01T09:00:00.000Z",
      createdAt: "2020-01-01T00:00:00.000Z",
      assistants: [],
    });
    expect(users[1]).toMatchObject({
      name: "Alice Able",
      isAdmin: false,
      mfaEnabled: false,
      assistants: ["gemini"],
    });
    expect(users[2]).toMatchObject({ suspended: true, mfaEnabled: true });
    expect(users[3]).toMatchObject({ email: "dave@acme.test", lastLoginAt: null });
    const userCall = fake.requests.find((r) => r.path === "/admin/directory/v1/users");
    expect(userCall?.query.get("customer")).toBe("my_customer");
  });

  it("pages through users and files across at least three pages", async () => {
    fake = await start({ pageSize: 2, extraUsers: 3, extraFiles: 4 });
    const adapter = adapterFor(fake);
    const users = await collect(adapter.users());
    const files = await collect(adapter.files());
    expect(users).toHaveLength(7);
    expect(new Set(users.map((u) => u.id)).size).toBe(7);
    expect(files.map((f) => f.id).sort()).toEqual(
      [
        "f-drive",
        "f-external",
        "f-internal",
        "f-legal",
        "f-private",
        "f-public",
        "f-shared",
        "f-extra-0",
        "f-extra-1",
        "f-extra-2",
        "f-extra-3",
      ].sort(),
    );
    const userPages = fake.requests.filter((r) => r.path === "/admin/directory/v1/users");
    // The Directory is listed twice (users, then the users whose files are read), in 4 pages each.
    expect(userPages.filter((r) => !r.query.get("pageToken"))).toHaveLength(2);
    expect(userPages.filter((r) => r.query.get("pageToken")).length).toBeGreaterThanOrEqual(6);
    // Alice's My Drive (her six files) took three pages of her own listing.
    const alicePages = fake.requests.filter(
      (r) => r.path === "/drive/v3/files" && r.query.get("corpora") === "user" && r.query.get("pageToken"),
    );
    expect(alicePages.length).toBeGreaterThanOrEqual(2);
  });

  it("maps files with public, external, domain and shared-drive permissions", async () => {
    fake = await start();
    const files = await collect(adapterFor(fake).files());
    const byId = new Map(files.map((f) => [f.id, f]));
    expect(byId.has("f-trashed")).toBe(false);
    expect(byId.get("f-public")).toEqual({
      id: "f-public",
      name: "Budget 2025.xlsx",
      mimeType: "application/vnd.google-apps.spreadsheet",
      ownerEmail: "alice@acme.test",
      driveId: null,
      permissions: [
        { id: "p-alice", type: "user", role: "owner", emailAddress: "alice@acme.test" },
        {
          id: "anyoneWithLink",
          type: "anyone",
          role: "reader",
          link: { expiresAt: null, discoverable: false },
        },
      ],
      modifiedAt: "2025-04-10T12:00:00.000Z",
      sizeBytes: 2048,
      label: null,
    });
    expect(byId.get("f-external")?.permissions).toEqual([
      { id: "p-admin", type: "user", role: "owner", emailAddress: "admin@acme.test" },
      { id: "p-ext", type: "user", role: "writer", emailAddress: "ext@partner.example" },
      {
        id: "p-partner",
        type: "domain",
        role: "reader",
        domain: "partner.example",
        link: { expiresAt: null, discoverable: false },
      },
    ]);
    expect(byId.get("f-internal")?.permissions[1]).toEqual({
      id: "p-acme",
      type: "domain",
      role: "commenter",
      domain: "acme.test",
      // Searchable in the domain, with an expiry: both read from the permission.
      link: { expiresAt: "2027-06-30T00:00:00.000Z", discoverable: true },
    });
    // Shared-drive items come without permissions from files.list: the adapter must ask permissions.list.
    expect(byId.get("f-drive")).toMatchObject({
      driveId: "d-eng",
      ownerEmail: "admin@acme.test",
      permissions: [
        { id: "p-eng-org", type: "user", role: "organizer", emailAddress: "admin@acme.test" },
        { id: "p-eve", type: "user", role: "commenter", emailAddress: "eve@gmail.example" },
      ],
    });
    // Each user's own files as that user; each shared drive as one of its members.
    const listCalls = fake.requests.filter((r) => r.path === "/drive/v3/files");
    expect(new Set(listCalls.map((r) => r.query.get("corpora")))).toEqual(new Set(["user", "drive"]));
    expect(listCalls.filter((r) => r.query.get("corpora") === "user").map((r) => r.query.get("q"))).toContain(
      "'me' in owners and trashed = false",
    );
    expect(fake.requests.some((r) => r.path === "/drive/v3/files/f-drive/permissions")).toBe(true);
    expect(fake.requests.some((r) => r.path === "/drive/v3/files/f-public/permissions")).toBe(false);
  });

  it("maps shared drives with members, restrictions and file counts", async () => {
    fake = await start();
    const drives = await collect(adapterFor(fake).sharedDrives());
    expect(drives).toEqual([
      {
        id: "d-eng",
        name: "Engineering",
        members: [
          { email: "admin@acme.test", role: "organizer" },
          { email: "alice@acme.test", role: "writer" },
          { email: "eng@acme.test", role: "reader" },
        ],
        restrictions: { domainUsersOnly: false, driveMembersOnly: false, copyRequiresWriterPermission: true },
        fileCount: 1,
      },
      {
        id: "d-fin",
        name: "Finance",
        members: [{ email: "bob@acme.test", role: "organizer" }],
        restrictions: { domainUsersOnly: true, driveMembersOnly: true, copyRequiresWriterPermission: false },
        fileCount: 0,
      },
      {
        id: "d-legal",
        name: "Legal",
        members: [
          { email: "counsel@lawfirm.example", role: "organizer" },
          { email: "alice@acme.test", role: "organizer" },
        ],
        restrictions: { domainUsersOnly: false, driveMembersOnly: true, copyRequiresWriterPermission: true },
        fileCount: 1,
      },
    ]);
  });

  it("maps OAuth tokens to app grants with kind, publisher trust and grant dates", async () => {
    fake = await start();
    const grants = await collect(adapterFor(fake).appGrants());
    const byLabel = new Map(grants.map((g) => [g.label, g]));
    expect(grants).toHaveLength(3);
    expect(byLabel.get("ChatGPT")).toEqual({
      id: "u-alice:1234-chatgpt.apps.googleusercontent.com",
      clientId: "1234-chatgpt.apps.googleusercontent.com",
      label: "ChatGPT",
      // A display name no longer makes an agent (issue 30): this client id is in no catalog.
      kind: "oauth_app",
      access: "delegated",
      publisher: "ChatGPT",
      isKnownPublisher: true,
      scopes: ["https://www.googleapis.com/auth/drive.readonly", "openid", "email"],
      userEmail: "alice@acme.test",
      grantedAt: "2025-04-01T08:00:00.000Z",
    });
    expect(byLabel.get("Backup Robot")).toMatchObject({
      kind: "service_account",
      userEmail: "admin@acme.test",
      // No authorize event in the window: the user's creation bounds the grant date.
      grantedAt: "2020-01-01T00:00:00.000Z",
    });
    expect(byLabel.get("Cool PDF Tool")).toMatchObject({
      kind: "oauth_app",
      isKnownPublisher: false,
      userEmail: "bob@acme.test",
    });
  });

  it("maps Reports activity since a date, with the tenant's domains deciding what is external", async () => {
    fake = await start();
    const adapter = adapterFor(fake);
    expect(await adapter.workspace()).toEqual({
      domain: "acme.test",
      internalDomains: ["acme.test", "acme-labs.test"],
    });
    const events = await collect(adapter.activity(new Date("2025-01-01T00:00:00.000Z")));
    const summary = events.map((e) => [e.type, e.actorEmail, e.resourceId ?? null, e.target ?? null]);
    expect(summary).toEqual(
      expect.arrayContaining([
        ["share_external", "admin@acme.test", "f-external", "ext@partner.example"],
        ["download", "alice@acme.test", "f-public", null],
        ["file_access", "bob@acme.test", "f-internal", null],
        ["share_external", "alice@acme.test", "f-public", "anyone"],
        ["oauth_grant", "alice@acme.test", "1234-chatgpt.apps.googleusercontent.com", "ChatGPT"],
        ["login", "alice@acme.test", null, null],
      ]),
    );
    // Internal re-share, the 2024 download and the failed login are not events of interest.
    expect(events).toHaveLength(6);
    expect(new Set(events.map((e) => e.id)).size).toBe(6);
    const driveCall = fake.requests.find((r) => r.path.endsWith("/applications/drive"));
    expect(driveCall?.query.get("startTime")).toBe("2025-01-01T00:00:00.000Z");
  });

  it("retries a 429 after the Retry-After delay and then succeeds", async () => {
    fake = await start();
    fake.injectFault({ status: 429, count: 2, retryAfter: 1, pathPrefix: "/admin/directory/v1/users" });
    const { delays, http } = recordingSleep();
    const users = await collect(adapterFor(fake, http).users());
    expect(users).toHaveLength(4);
    expect(delays).toEqual([1000, 1000]);
    expect(fake.requests.filter((r) => r.path === "/admin/directory/v1/users")).toHaveLength(3);
  });

  it("retries Drive's 403 rateLimitExceeded like a 429", async () => {
    fake = await start();
    const body = {
      error: {
        code: 403,
        message: "Rate Limit Exceeded",
        errors: [{ domain: "usageLimits", reason: "rateLimitExceeded" }],
      },
    };
    fake.injectFault({ status: 403, count: 2, pathPrefix: "/drive/v3/drives", body });
    const { delays, http } = recordingSleep();
    expect(await collect(adapterFor(fake, http).sharedDrives())).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it("keeps a shared-drive file whose permissions the subject may not list, without its permissions", async () => {
    fake = await start();
    const body = {
      error: {
        code: 403,
        message: "Insufficient permissions",
        errors: [{ reason: "insufficientFilePermissions" }],
      },
    };
    fake.injectFault({ status: 403, count: 1, pathPrefix: "/drive/v3/files/f-drive/permissions", body });
    const files = await collect(adapterFor(fake).files());
    expect(files.find((f) => f.id === "f-drive")?.permissions).toEqual([]);
    expect(files).toHaveLength(7);
  });

  it("gives up on a persistent 503 with SourceUnavailableError after bounded attempts", async () => {
    fake = await start();
    fake.injectFault({ status: 503, count: 100, pathPrefix: "/drive/v3/files" });
    const { delays, http } = recordingSleep();
    // One user at a time, so the first user's listing is the one that gives up.
    const adapter = createGoogleWorkspaceAdapter({
      credentials: ACCOUNT.credentials,
      endpoints: fake.endpoints,
      http,
      concurrency: 1,
    });
    await expect(collect(adapter.files())).rejects.toThrow(SourceUnavailableError);
    expect(fake.requests.filter((r) => r.path === "/drive/v3/files")).toHaveLength(5);
    expect(delays).toHaveLength(4);
  });

  it("turns a wrong token into SourceAuthError and a 403 into SourceAuthError with the API's message", async () => {
    fake = await start();
    await expect(collect(adapterFor(fake, {}, { accessToken: "wrong-token" }).users())).rejects.toThrow(
      SourceAuthError,
    );
    fake.injectFault({ status: 403, count: 1, pathPrefix: "/admin/directory/v1/users" });
    const error = await collect(adapterFor(fake).users()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceAuthError);
    expect((error as Error).message).toContain("HTTP 403");
  });
});

describe("Google service account (JWT bearer grant)", () => {
  it("exchanges an RS256 assertion the fake verifies with the public key, and caches the token", async () => {
    const account = generateServiceAccount("admin@acme.test");
    fake = await startWithServiceAccounts(account);
    const adapter = adapterFor(fake, {}, account.credentials);
    expect(await collect(adapter.users())).toHaveLength(4);
    expect(await collect(adapter.users())).toHaveLength(4);
    // One token per scope (the Directory's, then the licences'), each cached for the second read.
    expect(fake.requests.filter((r) => r.path === "/token")).toHaveLength(2);
    expect(fake.grants).toEqual([
      {
        subject: "admin@acme.test",
        scopes: ["https://www.googleapis.com/auth/admin.directory.user.readonly"],
      },
      { subject: "admin@acme.test", scopes: ["https://www.googleapis.com/auth/apps.licensing"] },
    ]);
    const grant = new URLSearchParams(fake.requests.find((r) => r.path === "/token")?.body);
    expect(grant.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    // One token per subject and scope: the admin's Drive token serves every drive they read.
    expect((await collect(adapter.sharedDrives())).map((d) => d.id)).toEqual(["d-eng", "d-fin", "d-legal"]);
    const keys = fake.grants.map((g) => `${g.subject} ${g.scopes.join(" ")}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain("alice@acme.test https://www.googleapis.com/auth/drive.readonly");
  });

  it("refuses an assertion signed with another key as SourceAuthError", async () => {
    const registered = generateServiceAccount("admin@acme.test");
    const impostor = generateServiceAccount("admin@acme.test");
    fake = await startWithServiceAccounts(registered);
    const adapter = adapterFor(fake, {}, impostor.credentials);
    const error = await collect(adapter.users()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceAuthError);
    expect((error as Error).message).toContain("Invalid JWT Signature");
    expect(fake.issuedTokens).toHaveLength(0);
  });

  it("refuses impersonating a user who is not an admin", async () => {
    const account = generateServiceAccount("alice@acme.test");
    fake = await startWithServiceAccounts(account);
    const adapter = adapterFor(fake, {}, account.credentials);
    await expect(adapter.workspace()).rejects.toThrow(SourceAuthError);
  });
});
