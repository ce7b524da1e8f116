import { afterEach, describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { collect, recordingSleep } from "../testing/adapter-harness";
import { startFakeGraph, type TFakeGraph } from "../testing/fake-graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../testing/graph-fixture";
import { SourceAuthError, SourceUnavailableError } from "../types";
import { createMicrosoft365Adapter } from "./adapter";

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function start(opts: { pageSize?: number; extraUsers?: number; extraFiles?: number } = {}) {
  fake = await startFakeGraph({
    fixture: buildGraphFixture({ extraUsers: opts.extraUsers, extraFiles: opts.extraFiles }),
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    pageSize: opts.pageSize,
  });
  return fake;
}

function adapterFor(server: TFakeGraph, http: THttpOptions = {}, secret = SECRET) {
  return createMicrosoft365Adapter({
    credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: secret },
    endpoints: { graphBaseUrl: server.url, loginBaseUrl: server.url },
    http,
  });
}

describe("Microsoft 365 adapter against the fake Graph", () => {
  it("reads users with MFA and admin from registration details and last sign-in from signInActivity", async () => {
    const server = await start();
    const users = await collect(adapterFor(server).users());
    expect(users).toEqual([
      {
        id: "m-admin",
        email: "admin@contoso.test",
        name: "Ada Admin",
        isAdmin: true,
        mfaEnabled: true,
        suspended: false,
        lastLoginAt: "2025-05-01T09:00:00.000Z",
        createdAt: "2019-02-01T00:00:00Z",
      },
      {
        id: "m-alice",
        email: "alice@contoso.test",
        name: "Alice Able",
        isAdmin: false,
        mfaEnabled: false,
        suspended: false,
        lastLoginAt: "2025-05-02T10:00:00.000Z",
        createdAt: "2020-02-01T00:00:00Z",
      },
      expect.objectContaining({ id: "m-bob", suspended: true, mfaEnabled: true }),
      expect.objectContaining({ id: "m-dave", email: "dave@contoso.test", lastLoginAt: null }),
    ]);
    // One token for the whole read: the client-credentials token is cached.
    expect(server.requests.filter((r) => r.path.endsWith("/oauth2/v2.0/token"))).toHaveLength(1);
  });

  it("follows @odata.nextLink across at least three pages", async () => {
    const server = await start({ pageSize: 2, extraUsers: 3, extraFiles: 3 });
    const adapter = adapterFor(server);
    expect(await collect(adapter.users())).toHaveLength(7);
    const files = await collect(adapter.files());
    expect(files.map((f) => f.id).sort()).toEqual(
      ["a-budget", "a-plan", "a-extra-0", "a-extra-1", "a-extra-2", "p-budget", "t-strategy"].sort(),
    );
    const userPages = server.requests.filter(
      (r) => r.path === "/v1.0/users" && r.query.get("$select")?.includes("signInActivity"),
    );
    expect(userPages.length).toBeGreaterThanOrEqual(3);
    expect(userPages.slice(1).every((r) => r.query.get("$skiptoken"))).toBe(true);
  });

  it("maps drive items and their anonymous, organization and specific-people permissions", async () => {
    const server = await start();
    const adapter = adapterFor(server);
    expect(await adapter.workspace()).toEqual({
      domain: "contoso.test",
      internalDomains: ["contoso.test", "contoso.onmicrosoft.test"],
    });
    const files = await collect(adapter.files());
    const byId = new Map(files.map((f) => [f.id, f]));
    expect(files).toHaveLength(4);
    // A library of a site other than the root is read through GET /sites/{id}/drives.
    expect(byId.get("p-budget")).toMatchObject({
      driveId: "drv-projects",
      permissions: [expect.objectContaining({ type: "anyone" })],
    });
    expect(byId.get("a-budget")).toEqual({
      id: "a-budget",
      name: "Budget.xlsx",
      mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      ownerEmail: "alice@contoso.test",
      driveId: null,
      permissions: [
        { id: "perm-owner", type: "user", role: "owner", emailAddress: "alice@contoso.test" },
        { id: "perm-anon", type: "anyone", role: "reader" },
      ],
      modifiedAt: "2025-04-10T12:00:00Z",
      sizeBytes: 4096,
    });
    expect(byId.get("a-plan")?.permissions).toEqual([
      { id: "perm-people:0", type: "user", role: "writer", emailAddress: "ext@partner.example" },
      { id: "perm-people:1", type: "user", role: "writer", emailAddress: "bob@contoso.test" },
    ]);
    expect(byId.get("t-strategy")).toMatchObject({
      driveId: "drv-team",
      ownerEmail: "admin@contoso.test",
      permissions: [{ id: "perm-org", type: "domain", role: "reader", domain: "contoso.test" }],
    });
    expect(server.requests.some((r) => r.path === "/v1.0/drives/drv-alice/root/delta")).toBe(true);
  });

  it("maps document libraries as shared drives with members from the root's permissions", async () => {
    const server = await start();
    const drives = await collect(adapterFor(server).sharedDrives());
    expect(drives).toEqual([
      {
        id: "drv-team",
        name: "Team Documents",
        members: [
          { email: "admin@contoso.test", role: "organizer" },
          { email: "alice@contoso.test", role: "writer" },
        ],
        restrictions: {
          domainUsersOnly: false,
          driveMembersOnly: false,
          copyRequiresWriterPermission: false,
        },
        fileCount: 1,
      },
      {
        id: "drv-projects",
        name: "Project Files",
        members: [{ email: "pm@vendor.example", role: "writer" }],
        restrictions: {
          domainUsersOnly: false,
          driveMembersOnly: false,
          copyRequiresWriterPermission: false,
        },
        fileCount: 1,
      },
    ]);
  });

  it("maps delegated permission grants with publisher trust, kind and scopes", async () => {
    const server = await start();
    const grants = await collect(adapterFor(server).appGrants());
    const byId = new Map(grants.map((g) => [g.id, g]));
    expect(grants).toHaveLength(5);
    expect(byId.get("g-chatgpt")).toEqual({
      id: "g-chatgpt",
      clientId: "app-chatgpt",
      label: "ChatGPT Connector",
      kind: "ai_agent",
      publisher: "OpenAI",
      isKnownPublisher: true,
      scopes: ["Files.Read.All", "User.Read", "offline_access"],
      userEmail: "alice@contoso.test",
      grantedAt: "2020-02-01T00:00:00Z",
    });
    expect(byId.get("g-mailmerge")).toMatchObject({
      kind: "oauth_app",
      publisher: "Some Dev Tenant",
      isKnownPublisher: false,
      userEmail: "",
      grantedAt: "2019-01-01T00:00:00Z",
    });
    expect(byId.get("g-mi")).toMatchObject({ kind: "service_account", userEmail: "admin@contoso.test" });
    expect(byId.get("g-graph")).toMatchObject({ publisher: "Microsoft Services", isKnownPublisher: true });
    // Application permissions: app-only, role ids resolved to their names, one grant per app.
    expect(byId.get("approle:sp-archiver:sp-graph")).toEqual({
      id: "approle:sp-archiver:sp-graph",
      clientId: "app-archiver",
      label: "Mailbox Archiver Daemon",
      kind: "service_account",
      publisher: "Archiver Tenant",
      isKnownPublisher: false,
      scopes: ["Files.Read.All", "Mail.Read"],
      userEmail: "",
      grantedAt: "2024-02-01T10:00:00Z",
    });
    // Each service principal is fetched once even when several grants name it.
    expect(server.requests.filter((r) => r.path === "/v1.0/servicePrincipals/sp-graph")).toHaveLength(1);
  });

  it("maps successful sign-ins since a date to login events", async () => {
    const server = await start();
    const events = await collect(adapterFor(server).activity(new Date("2025-01-01T00:00:00Z")));
    expect(events).toEqual([
      {
        id: "s-admin",
        at: "2025-05-02T08:00:00Z",
        actorEmail: "admin@contoso.test",
        type: "login",
        target: "Azure Portal",
      },
      {
        id: "s-alice",
        at: "2025-05-01T08:00:00Z",
        actorEmail: "alice@contoso.test",
        type: "login",
        target: "Office 365",
      },
    ]);
    const call = server.requests.find((r) => r.path === "/v1.0/auditLogs/signIns");
    expect(call?.query.get("$filter")).toBe("createdDateTime ge 2025-01-01T00:00:00.000Z");
  });

  it("retries 429 with Retry-After and succeeds", async () => {
    const server = await start();
    server.injectFault({ status: 429, count: 1, retryAfter: 1, pathPrefix: "/v1.0/oauth2PermissionGrants" });
    const { delays, http } = recordingSleep();
    const grants = await collect(adapterFor(server, http).appGrants());
    expect(grants).toHaveLength(5);
    expect(delays).toEqual([1000]);
  });

  it("also retries a Retry-After given as an HTTP-date", async () => {
    const server = await start();
    server.injectFault({
      status: 503,
      count: 1,
      retryAfter: new Date(Date.now() + 2000).toUTCString(),
      pathPrefix: "/v1.0/organization",
    });
    const { delays, http } = recordingSleep();
    await adapterFor(server, http).workspace();
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(0);
    expect(delays[0]).toBeLessThanOrEqual(2000);
  });

  it("gives up on a persistent 503 with SourceUnavailableError", async () => {
    const server = await start();
    server.injectFault({ status: 503, count: 100, pathPrefix: "/v1.0/auditLogs" });
    const { delays, http } = recordingSleep({ retry: { maxAttempts: 3 } });
    await expect(collect(adapterFor(server, http).activity(new Date(0)))).rejects.toThrow(
      SourceUnavailableError,
    );
    expect(server.requests.filter((r) => r.path === "/v1.0/auditLogs/signIns")).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it("refuses a wrong client secret, and a 403 from Graph, as SourceAuthError", async () => {
    const server = await start();
    const refused = await adapterFor(server, {}, "wrong")
      .workspace()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SourceAuthError);
    expect((refused as Error).message).toContain("AADSTS7000215");
    server.injectFault({ status: 403, count: 1, pathPrefix: "/v1.0/reports" });
    const denied = await collect(adapterFor(server).users()).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(SourceAuthError);
    expect((denied as Error).message).toContain("Insufficient privileges");
  });

  it("fetches a fresh token once when Graph rejects a cached one", async () => {
    const server = await start();
    const adapter = adapterFor(server);
    await adapter.workspace();
    server.injectFault({ status: 401, count: 1, pathPrefix: "/v1.0/users" });
    expect(await collect(adapter.users())).toHaveLength(4);
    expect(server.issuedTokens).toHaveLength(2);
  });
});
