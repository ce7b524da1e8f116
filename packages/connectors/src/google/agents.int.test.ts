import { afterEach, describe, expect, it } from "vitest";
import type { TAgentCatalogEntry } from "../agents/catalog";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import { startFakeGoogle, type TFakeGoogle, type TGoogleFixture } from "../../../fakes/src/fake-google";
import { buildGoogleFixture, generateServiceAccount } from "../../../fakes/src/google-fixture";
import { type THttpOptions } from "../http/client";
import { createGoogleWorkspaceAdapter } from "./adapter";

// Google's agents (issue 30): users' OAuth tokens (Directory tokens.list) are delegated access,
// matched to the agent catalog by client id; clients the admin gave domain-wide delegation (the
// admin audit log's AUTHORIZE_API_CLIENT_ACCESS) reach every user's data: application access.

const TOKEN = "static-test-token";
const ACCOUNT = generateServiceAccount("admin@acme.test");
const DRIVE = "https://www.googleapis.com/auth/drive";
const GMAIL = "https://www.googleapis.com/auth/gmail.readonly";

let fake: TFakeGoogle | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

const adminEvent = (id: string, time: string, name: string, clientId: string, scopes?: string[]) => ({
  id: { time, uniqueQualifier: id, applicationName: "admin" },
  actor: { email: "Admin@acme.test" },
  events: [
    {
      type: "SECURITY_SETTINGS",
      name,
      parameters: [
        { name: "API_CLIENT_NAME", value: clientId },
        ...(scopes ? [{ name: "API_SCOPES", multiValue: scopes }] : []),
      ],
    },
  ],
});

function fixture(): TGoogleFixture {
  const base = buildGoogleFixture();
  return {
    ...base,
    activities: {
      ...base.activities,
      admin: [
        adminEvent("d1", "2026-03-01T10:00:00.000Z", "AUTHORIZE_API_CLIENT_ACCESS", "104200000000000000001", [
          DRIVE,
          GMAIL,
        ]),
        // Authorized, then removed: no delegation left.
        adminEvent("d2", "2026-03-02T10:00:00.000Z", "AUTHORIZE_API_CLIENT_ACCESS", "104200000000000000002", [
          DRIVE,
        ]),
        adminEvent("d3", "2026-03-05T10:00:00.000Z", "REMOVE_API_CLIENT_ACCESS", "104200000000000000002"),
        // Re-authorized with narrower scopes: the latest event decides.
        adminEvent("d4", "2026-03-03T10:00:00.000Z", "AUTHORIZE_API_CLIENT_ACCESS", "104200000000000000003", [
          DRIVE,
          GMAIL,
        ]),
        adminEvent("d5", "2026-03-09T10:00:00.000Z", "AUTHORIZE_API_CLIENT_ACCESS", "104200000000000000003", [
          "https://www.googleapis.com/auth/drive.readonly",
        ]),
      ],
    },
  };
}

/** A catalog that knows one delegated client and one user-granted client as agents. */
const CATALOG: TAgentCatalogEntry[] = [
  {
    id: "test-sync-agent",
    label: "Sync agent",
    publisher: "Agent Labs",
    kind: "ai_agent",
    platforms: ["google_workspace"],
    match: { clientIds: ["104200000000000000003", "1234-chatgpt.apps.googleusercontent.com"] },
    source: {
      url: "https://example.com/agent",
      retrieved: "2026-12-02",
      says: "The test agent's documented client ids.",
    },
  },
];

async function start(opts: { pageSize?: number } = {}) {
  fake = await startFakeGoogle({
    fixture: fixture(),
    accessToken: TOKEN,
    serviceAccounts: [{ clientEmail: ACCOUNT.credentials.clientEmail, publicKey: ACCOUNT.publicKey }],
    ...opts,
  });
  return fake;
}

const adapterFor = (server: TFakeGoogle, http: THttpOptions = {}, agentCatalog?: TAgentCatalogEntry[]) =>
  createGoogleWorkspaceAdapter({
    credentials: ACCOUNT.credentials,
    endpoints: server.endpoints,
    http,
    ...(agentCatalog ? { agentCatalog } : {}),
  });

const summary = (grants: Array<{ id: string; kind: string; access?: string; agentSource?: string }>) =>
  Object.fromEntries(grants.map((g) => [g.id, [g.kind, g.access ?? null, g.agentSource ?? null]]));

describe("Google Workspace agents", () => {
  it("lists domain-wide delegations as application access and users' tokens as delegated", async () => {
    const server = await start();
    const grants = await collect(adapterFor(server).appGrants());
    expect(summary(grants)).toEqual({
      "dwd:104200000000000000001": ["service_account", "application", null],
      "dwd:104200000000000000003": ["service_account", "application", null],
      "u-alice:1234-chatgpt.apps.googleusercontent.com": ["oauth_app", "delegated", null],
      "u-admin:backup@acme-backup.iam.gserviceaccount.com": ["service_account", "delegated", null],
      "u-bob:999-anon.apps.googleusercontent.com": ["oauth_app", "delegated", null],
    });
    expect(grants[0]).toEqual({
      id: "dwd:104200000000000000001",
      clientId: "104200000000000000001",
      label: "104200000000000000001",
      kind: "service_account",
      access: "application",
      publisher: "Domain-wide delegation",
      isKnownPublisher: false,
      scopes: [DRIVE, GMAIL],
      userEmail: "",
      grantedAt: "2026-03-01T10:00:00.000Z",
    });
    expect(grants[1]?.scopes).toEqual(["https://www.googleapis.com/auth/drive.readonly"]);
    // Both audit events asked by name, of the admin application.
    const asked = server.requests
      .filter((r) => r.path === "/admin/reports/v1/activity/users/all/applications/admin")
      .map((r) => r.query.get("eventName"));
    expect(asked).toEqual(["AUTHORIZE_API_CLIENT_ACCESS", "REMOVE_API_CLIENT_ACCESS"]);
  });

  it("makes agents of the clients the catalog knows by id, delegated or domain-wide", async () => {
    const server = await start();
    const grants = summary(await collect(adapterFor(server, {}, CATALOG).appGrants()));
    expect(grants["dwd:104200000000000000003"]).toEqual(["ai_agent", "application", "publisher_catalog"]);
    expect(grants["u-alice:1234-chatgpt.apps.googleusercontent.com"]).toEqual([
      "ai_agent",
      "delegated",
      "publisher_catalog",
    ]);
    expect(grants["dwd:104200000000000000001"]).toEqual(["service_account", "application", null]);
  });

  it("pages the audit log (nextPageToken) and waits out a 429 with Retry-After", async () => {
    const server = await start({ pageSize: 1 });
    server.injectFault({
      status: 429,
      count: 1,
      retryAfter: 2,
      pathPrefix: "/admin/reports/v1/activity/users/all/applications/admin",
    });
    server.injectFault({
      status: 429,
      count: 1,
      retryAfter: 1,
      pathPrefix: "/admin/directory/v1/users/u-bob/tokens",
    });
    const { delays, http } = recordingSleep();
    const grants = await collect(adapterFor(server, http).appGrants());
    expect(Object.keys(summary(grants))).toEqual([
      "dwd:104200000000000000001",
      "dwd:104200000000000000003",
      "u-admin:backup@acme-backup.iam.gserviceaccount.com",
      "u-alice:1234-chatgpt.apps.googleusercontent.com",
      "u-bob:999-anon.apps.googleusercontent.com",
    ]);
    expect(delays).toEqual([2000, 1000]);
    const adminPages = server.requests.filter(
      (r) => r.path === "/admin/reports/v1/activity/users/all/applications/admin" && r.query.has("pageToken"),
    );
    // 4 authorize events and 1 removal at one per page: 3 + 0 follow-up pages.
    expect(adminPages).toHaveLength(3);
  });

  it("the fake refuses a field Discovery does not declare on tokens, with Google's 400", async () => {
    const server = await start();
    const response = await fetch(
      `${server.endpoints.adminBaseUrl}/admin/directory/v1/users/u-alice/tokens?fields=items(clientId,publisher)`,
      {
        headers: { authorization: `Bearer ${TOKEN}` },
      },
    );
    expect(response.status).toBe(400);
    expect(
      ((await response.json()) as { error: { message: string; errors: Array<{ reason: string }> } }).error,
    ).toMatchObject({
      code: 400,
      message: "Invalid field selection publisher",
      errors: [{ reason: "invalidParameter" }],
    });
  });
});
