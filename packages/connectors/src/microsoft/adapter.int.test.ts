import { afterEach, describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import {
  ALL_GRAPH_ROLES,
  startFakeGraph,
  type TFakeGraph,
  type TGraphFixture,
} from "../../../fakes/src/fake-graph";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import { SourceAuthError, SourceUnavailableError } from "../types";
import { MICROSOFT_ACCESS } from "./access";
import { createJsonClient } from "../http/client";
import { checkAccess, createMicrosoft365Adapter, managementTokenProvider } from "./adapter";
import { MANAGEMENT_ACTIVITY_FEATURE } from "./management-activity";
import { microsoftTokenProvider } from "./auth";

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";

let fake: TFakeGraph | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

type TStart = {
  pageSize?: number;
  extraUsers?: number;
  extraFiles?: number;
  now?: () => number;
} & Pick<TGraphFixture, "grantedRoles" | "entraPremium">;

async function start(opts: TStart = {}) {
  const fixture = buildGraphFixture({ extraUsers: opts.extraUsers, extraFiles: opts.extraFiles });
  fake = await startFakeGraph({
    fixture: {
      ...fixture,
      ...(opts.grantedRoles ? { grantedRoles: opts.grantedRoles } : {}),
      ...(opts.entraPremium === undefined ? {} : { entraPremium: opts.entraPremium }),
    },
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    pageSize: opts.pageSize,
    now: opts.now,
  });
  return fake;
}

const without = (...removed: string[]) => ALL_GRAPH_ROLES.filter((r) => !removed.includes(r));

function adapterFor(server: TFakeGraph, http: THttpOptions = {}, secret = SECRET) {
  return createMicrosoft365Adapter({
    credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: secret },
    // The Management Activity API is another fake's (o365); here its calls stay on this machine.
    endpoints: { graphBaseUrl: server.url, loginBaseUrl: server.url, manageBaseUrl: server.url },
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
        assistants: [],
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
        assistants: ["copilot"],
      },
      expect.objectContaining({ id: "m-bob", suspended: true, mfaEnabled: true, assistants: [] }),
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
        {
          id: "perm-anon",
          type: "anyone",
          role: "reader",
          link: { expiresAt: null, discoverable: false },
        },
      ],
      modifiedAt: "2025-04-10T12:00:00Z",
      sizeBytes: 4096,
      label: "Confidential",
    });
    expect(byId.get("a-plan")?.permissions).toEqual([
      { id: "perm-people:0", type: "user", role: "writer", emailAddress: "ext@partner.example" },
      { id: "perm-people:1", type: "user", role: "writer", emailAddress: "bob@contoso.test" },
    ]);
    expect(byId.get("t-strategy")).toMatchObject({
      driveId: "drv-team",
      ownerEmail: "admin@contoso.test",
      permissions: [
        {
          id: "perm-org",
          type: "domain",
          role: "reader",
          domain: "contoso.test",
          link: { expiresAt: "2027-06-30T00:00:00.000Z", discoverable: false },
        },
      ],
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
      // An agent because OpenAI is a Microsoft-verified publisher in the catalog, not by its name.
      kind: "ai_agent",
      agentSource: "publisher_catalog",
      access: "delegated",
      publisher: "OpenAI",
      isKnownPublisher: true,
      scopes: ["Files.Read.All", "User.Read", "offline_access"],
      userEmail: "alice@contoso.test",
      grantedAt: "2020-02-01T00:00:00Z",
    });
    // v1.0 has no publisherName: an unverified app of another tenant has no publisher to show.
    expect(byId.get("g-mailmerge")).toMatchObject({
      kind: "oauth_app",
      publisher: "Unknown publisher",
      isKnownPublisher: false,
      userEmail: "",
      grantedAt: "2019-01-01T00:00:00Z",
    });
    expect(byId.get("g-mi")).toMatchObject({ kind: "service_account", userEmail: "admin@contoso.test" });
    expect(byId.get("g-graph")).toMatchObject({ publisher: "Microsoft", isKnownPublisher: true });
    // Application permissions: app-only, role ids resolved to their names, one grant per app.
    expect(byId.get("approle:sp-archiver:sp-graph")).toEqual({
      id: "approle:sp-archiver:sp-graph",
      clientId: "app-archiver",
      label: "Mailbox Archiver Daemon",
      kind: "service_account",
      access: "application",
      publisher: "This organization",
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

  it("refuses a wrong client secret, and users without User.Read.All, as SourceAuthError", async () => {
    const server = await start({ grantedRoles: without("User.Read.All", "Directory.Read.All") });
    const refused = await adapterFor(server, {}, "wrong")
      .workspace()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SourceAuthError);
    expect((refused as Error).message).toContain("AADSTS7000215");
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

/** A request to the fake as Graph sees it: with a token the fake issued for this app. */
async function graphGet(server: TFakeGraph, pathAndQuery: string) {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: CLIENT_ID,
    client_secret: SECRET,
    scope: "https://graph.microsoft.com/.default",
  });
  const token = (await (
    await fetch(`${server.url}/${GRAPH_TENANT_ID}/oauth2/v2.0/token`, { method: "POST", body: form })
  ).json()) as { access_token: string };
  const response = await fetch(`${server.url}${pathAndQuery}`, {
    headers: { authorization: `Bearer ${token.access_token}` },
  });
  return {
    status: response.status,
    body: (await response.json()) as { error?: { code: string; message: string } },
  };
}

describe("the strict Graph fake refuses what Graph v1.0 refuses", () => {
  it("answers a beta-only $select property with Graph's 400, and an unknown query option with 400", async () => {
    const server = await start();
    const publisher = await graphGet(server, "/v1.0/servicePrincipals/sp-chatgpt?$select=id,publisherName");
    expect(publisher.status).toBe(400);
    expect(publisher.body.error).toMatchObject({
      code: "BadRequest",
      message: "Could not find a property named 'publisherName' on type 'microsoft.graph.servicePrincipal'.",
    });
    const email = await graphGet(server, "/v1.0/users?$select=id,email");
    expect(email.body.error?.message).toBe(
      "Could not find a property named 'email' on type 'microsoft.graph.user'.",
    );
    const option = await graphGet(server, "/v1.0/oauth2PermissionGrants?$orderby=scope");
    expect(option).toMatchObject({ status: 400, body: { error: { code: "BadRequest" } } });
    // The adapter's own requests pass: every property it selects is declared in v1.0.
    const adapter = adapterFor(server);
    await collect(adapter.appGrants());
    await collect(adapter.users());
    expect(server.requests.some((r) => r.path.startsWith("/v1.0/servicePrincipals/sp-"))).toBe(true);
  });

  it("refuses a resource without its permission (403) and sign-in data in a tenant without P1/P2", async () => {
    const server = await start({ grantedRoles: without("AuditLog.Read.All"), entraPremium: false });
    const reports = await graphGet(server, "/v1.0/reports/authenticationMethods/userRegistrationDetails");
    expect(reports).toMatchObject({
      status: 403,
      body: {
        error: {
          code: "Authorization_RequestDenied",
          message: "Insufficient privileges to complete the operation.",
        },
      },
    });
    const premiumServer = await startFakeGraph({
      fixture: { ...buildGraphFixture(), entraPremium: false },
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    try {
      const signIns = await graphGet(premiumServer, "/v1.0/users?$select=id,signInActivity");
      expect(signIns).toMatchObject({
        status: 403,
        body: {
          error: {
            code: "Authentication_RequestFromNonPremiumTenantOrB2CTenant",
            message: "Neither tenant is B2C or tenant doesn't have premium license",
          },
        },
      });
      expect((await graphGet(premiumServer, "/v1.0/users?$select=id,displayName")).status).toBe(200);
    } finally {
      await premiumServer.close();
    }
  });

  it("issues JWT-shaped tokens carrying the app's roles, expires them, and the adapter fetches a new one", async () => {
    let clock = Date.parse("2025-06-01T00:00:00Z");
    const server = await start({ now: () => clock, grantedRoles: ["User.Read.All", "Sites.Read.All"] });
    const adapter = adapterFor(server);
    await adapter.workspace();
    const [token] = server.issuedTokens;
    const claims = JSON.parse(Buffer.from(token?.split(".")[1] ?? "", "base64url").toString()) as {
      roles: string[];
      aud: string;
    };
    expect(claims).toMatchObject({
      roles: ["User.Read.All", "Sites.Read.All"],
      aud: "https://graph.microsoft.com",
    });
    clock += 2 * 3600_000;
    const stale = server.requests.length;
    await collect(adapter.files());
    // The cached token is refused as expired (401), a new one is fetched, the request repeated.
    const [first, second, third] = server.requests.slice(stale).map((r) => r.path);
    expect([first, second, third]).toEqual([
      "/v1.0/users",
      `/${GRAPH_TENANT_ID}/oauth2/v2.0/token`,
      "/v1.0/users",
    ]);
    expect(server.issuedTokens).toHaveLength(2);
  });
});

describe("Microsoft 365 adapter degrades per feature", () => {
  it("still lists every user without Entra ID P1/P2, marking MFA and last sign-in unknown", async () => {
    const server = await start({ entraPremium: false });
    const adapter = adapterFor(server);
    const users = await collect(adapter.users());
    expect(users.map((u) => u.id)).toEqual(["m-admin", "m-alice", "m-bob", "m-dave"]);
    expect(users[0]).toEqual({
      id: "m-admin",
      email: "admin@contoso.test",
      name: "Ada Admin",
      isAdmin: false,
      mfaEnabled: false,
      suspended: false,
      lastLoginAt: null,
      createdAt: "2019-02-01T00:00:00Z",
      unknown: ["mfa", "lastLogin"],
      assistants: [],
    });
    expect(users[2]).toMatchObject({ id: "m-bob", suspended: true });
    expect(adapter.coverageGaps()).toEqual([
      expect.objectContaining({ feature: "MFA registration", missing: "Microsoft Entra ID P1 or P2" }),
      expect.objectContaining({ feature: "Last sign-in", missing: "Microsoft Entra ID P1 or P2" }),
    ]);
    expect(adapter.coverageGaps()[0]?.detail).toContain("Neither tenant is B2C");
  });

  it("names AuditLog.Read.All when it is missing, and keeps what was readable", async () => {
    const server = await start({ grantedRoles: without("AuditLog.Read.All") });
    const adapter = adapterFor(server);
    const users = await collect(adapter.users());
    expect(users).toHaveLength(4);
    expect(users.every((u) => u.unknown?.join() === "mfa,lastLogin")).toBe(true);
    expect(await collect(adapter.activity(new Date(0)))).toEqual([]);
    const graphGaps = adapter.coverageGaps().filter((g) => g.feature !== MANAGEMENT_ACTIVITY_FEATURE);
    expect(graphGaps.map((g) => [g.feature, g.missing])).toEqual([
      ["MFA registration", "AuditLog.Read.All"],
      ["Last sign-in", "AuditLog.Read.All"],
      ["Sign-in activity", "AuditLog.Read.All"],
    ]);
  });

  it("resolves SharePoint identities by login name, never by their SharePoint id", async () => {
    const server = await start();
    const files = await collect(adapterFor(server).files());
    const plan = files.find((f) => f.id === "a-plan");
    // urn:spo:guest login → the external address; Entra user id → the directory.
    expect(plan?.permissions.map((p) => p.emailAddress)).toEqual(["ext@partner.example", "bob@contoso.test"]);
    const drives = await collect(adapterFor(server).sharedDrives());
    expect(drives.flatMap((d) => d.members.map((m) => m.email))).toEqual([
      "admin@contoso.test",
      "alice@contoso.test",
      "pm@vendor.example",
    ]);
    // SharePoint numbers (7, 12, 14) are never sent to the directory as user ids.
    expect(server.requests.some((r) => /^\/v1\.0\/users\/\d+/.test(r.path))).toBe(false);
  });
});

describe("Microsoft Purview sensitivity labels", () => {
  it("sets each Office file's label name, resolving a sublabel by its id, and asks only for labelable files", async () => {
    const server = await start({ extraFiles: 2 });
    const files = await collect(adapterFor(server).files());
    const label = new Map(files.map((f) => [f.id, f.label]));
    expect(Object.fromEntries(label)).toEqual({
      "a-budget": "Confidential",
      "a-plan": null,
      "a-extra-0": null,
      "a-extra-1": null,
      "t-strategy": "Board Only",
      "p-budget": null,
    });
    const extracted = server.requests.filter((r) => r.path.endsWith("/extractSensitivityLabels"));
    expect(extracted.every((r) => r.method === "POST")).toBe(true);
    // .txt files carry no label in SharePoint: never asked.
    expect(extracted.map((r) => r.path.split("/")[5]).sort()).toEqual([
      "a-budget",
      "a-plan",
      "p-budget",
      "t-strategy",
    ]);
    expect(server.requests.filter((r) => r.path.endsWith("/sensitivityLabels"))).toHaveLength(1);
  });

  it("without SensitivityLabel.Read reports a coverage gap, leaves labels null and extracts nothing", async () => {
    const server = await start({ grantedRoles: without("SensitivityLabel.Read") });
    const adapter = adapterFor(server);
    const files = await collect(adapter.files());
    expect(files).toHaveLength(4);
    expect(files.every((f) => f.label === null)).toBe(true);
    expect(server.requests.some((r) => r.path.endsWith("/extractSensitivityLabels"))).toBe(false);
    expect(adapter.coverageGaps()).toEqual([
      expect.objectContaining({ feature: "Sensitivity labels", missing: "SensitivityLabel.Read" }),
    ]);
  });

  it("retries a throttled label extraction after Retry-After", async () => {
    const server = await start();
    server.injectFault({
      status: 429,
      count: 1,
      retryAfter: 2,
      pathPrefix: "/v1.0/drives/drv-alice/items/a-budget/extract",
    });
    const { delays, http } = recordingSleep();
    const files = await collect(adapterFor(server, http).files());
    expect(files.find((f) => f.id === "a-budget")?.label).toBe("Confidential");
    expect(delays).toEqual([2000]);
  });
});

describe("checkAccess", () => {
  it("grants every requirement to an app holding every permission in a P1 tenant", async () => {
    const server = await start();
    const checks = await adapterFor(server).checkAccess();
    expect(checks.map((c) => c.permission)).toEqual(MICROSOFT_ACCESS.map((r) => r.permission));
    expect(checks.filter((c) => !c.granted)).toEqual([]);
    expect(server.requests.some((r) => r.path === "/v1.0/subscribedSkus")).toBe(true);
  });

  it("marks exactly the missing permission not granted", async () => {
    const server = await start({ grantedRoles: without("Sites.Read.All") });
    const checks = await adapterFor(server).checkAccess();
    expect(checks.filter((c) => !c.granted)).toEqual([
      expect.objectContaining({ feature: "Files and sharing", permission: "Sites.Read.All", granted: false }),
    ]);
  });

  it("accepts a broader permission for a narrower one, and marks licence needs without P1/P2", async () => {
    const server = await start({
      grantedRoles: [...without("User.Read.All"), "Directory.Read.All"],
      entraPremium: false,
    });
    // A tenant without an Entra ID P1/P2 subscription.
    const fixture = buildGraphFixture();
    const noPremium = await startFakeGraph({
      fixture: { ...fixture, subscribedSkus: [], entraPremium: false },
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    try {
      const checks = await adapterFor(server).checkAccess();
      expect(checks.find((c) => c.permission === "User.Read.All")?.granted).toBe(true);
      const licensed = await adapterFor(noPremium).checkAccess();
      expect(licensed.filter((c) => !c.granted).map((c) => c.feature)).toEqual([
        "MFA registration",
        "Last sign-in",
        "Sign-in activity",
      ]);
      expect(licensed.find((c) => !c.granted)?.detail).toContain("AAD_PREMIUM");
    } finally {
      await noPremium.close();
    }
  });
});

describe("checkAccess across APIs", () => {
  it("checks an Office 365 Management API permission on that API's own token", async () => {
    const fixture = buildGraphFixture();
    const server = await startFakeGraph({
      fixture: { ...fixture, managementRoles: [] },
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    fake = server;
    const credentials = { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET };
    const tokens = microsoftTokenProvider(credentials, { loginBaseUrl: server.url });
    const graph = createJsonClient({ source: "Microsoft 365", baseUrl: server.url, tokens });
    const refused = await checkAccess(graph, tokens, managementTokenProvider(credentials, server.url));
    expect(refused.filter((c) => !c.granted).map((c) => c.permission)).toEqual(["ActivityFeed.Read"]);
    const scopes = server.requests
      .filter((r) => r.path.endsWith("/oauth2/v2.0/token"))
      .map((r) => new URLSearchParams(r.body).get("scope"));
    expect(scopes).toEqual(["https://graph.microsoft.com/.default", "https://manage.office.com/.default"]);
  });
});

describe("app grants degrade per feature", () => {
  it("reports both grant kinds as gaps without Application.Read.All and Directory.Read.All", async () => {
    const server = await start({ grantedRoles: without("Application.Read.All", "Directory.Read.All") });
    const adapter = adapterFor(server);
    expect(await collect(adapter.appGrants())).toEqual([]);
    expect(adapter.coverageGaps().map((g) => [g.feature, g.missing])).toEqual([
      ["App grants: application permissions", "Application.Read.All"],
      ["App grants: delegated consents", "Directory.Read.All"],
    ]);
  });
});
