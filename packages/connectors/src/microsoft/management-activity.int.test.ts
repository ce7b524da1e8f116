import { afterEach, describe, expect, it } from "vitest";
import { type THttpOptions } from "../http/client";
import { collect, recordingSleep } from "../../../fakes/src/adapter-harness";
import { startFakeGraph, type TFakeGraph } from "../../../fakes/src/fake-graph";
import {
  azureAdRecord,
  blobsOf,
  sharePointRecord,
  startFakeO365Activity,
  type TFakeO365Activity,
  type TO365ActivityFixture,
} from "../../../fakes/src/fake-o365-activity";
import { buildGraphFixture, GRAPH_TENANT_ID } from "../../../fakes/src/graph-fixture";
import { createMicrosoft365Adapter } from "./adapter";
import { CONTENT_TYPES, createManagementActivity } from "./management-activity";

// The Microsoft 365 adapter's audit activity, read through the Office 365 Management Activity API
// fake (one login URL for both resources, as login.microsoftonline.com), and the fake's refusals.

const CLIENT_ID = "aaaaaaaa-0000-0000-0000-000000000001";
const SECRET = "s3cret~value";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const servers: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  while (servers.length) await servers.pop()?.close();
});

async function start(fixture: Partial<TO365ActivityFixture> = {}, pageSize?: number) {
  const graph: TFakeGraph = await startFakeGraph({
    fixture: buildGraphFixture(),
    clientId: CLIENT_ID,
    clientSecret: SECRET,
  });
  servers.push(graph);
  const o365: TFakeO365Activity = await startFakeO365Activity({
    fixture: { tenantId: GRAPH_TENANT_ID, blobs: [], ...fixture },
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    graphLoginUrl: graph.url,
    pageSize,
  });
  servers.push(o365);
  return { graph, o365 };
}

function adapterFor(s: { graph: TFakeGraph; o365: TFakeO365Activity }, http: THttpOptions = {}) {
  return createMicrosoft365Adapter({
    credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
    endpoints: { graphBaseUrl: s.graph.url, loginBaseUrl: s.o365.url, manageBaseUrl: s.o365.url },
    http,
  });
}

const now = Date.now();
const ago = (ms: number) => new Date(now - ms);
const SINCE = new Date("2025-01-01T00:00:00Z");

/** Three days of audit content: every mapped kind, noise the mapping drops, one record in two blobs. */
function auditContent() {
  const sharePoint = [
    sharePointRecord({
      id: "sp-view",
      at: ago(3 * DAY),
      user: "Alice@contoso.test",
      operation: "FileAccessed",
    }),
    sharePointRecord({
      id: "sp-dl",
      at: ago(2 * DAY),
      user: "alice@contoso.test",
      operation: "FileDownloaded",
    }),
    sharePointRecord({
      id: "sp-share",
      at: ago(2 * DAY),
      user: "alice@contoso.test",
      operation: "SharingSet",
      target: "bob@partner.example",
      targetType: "Guest",
    }),
    sharePointRecord({
      id: "sp-internal",
      at: ago(2 * DAY),
      user: "alice@contoso.test",
      operation: "SharingSet",
      target: "admin@contoso.test",
      targetType: "Member",
    }),
    sharePointRecord({
      id: "sp-anon",
      at: ago(30 * HOUR),
      user: "bob@contoso.test",
      operation: "AnonymousLinkCreated",
    }),
    sharePointRecord({
      id: "sp-del",
      at: ago(20 * HOUR),
      user: "bob@contoso.test",
      operation: "FileRecycled",
    }),
    sharePointRecord({ id: "sp-sys", at: ago(20 * HOUR), user: "app@sharepoint", operation: "FileAccessed" }),
    sharePointRecord({
      id: "sp-old",
      at: ago(10 * DAY),
      user: "alice@contoso.test",
      operation: "FileAccessed",
    }),
  ];
  const aad = [
    azureAdRecord({
      id: "aad-login",
      at: ago(26 * HOUR),
      user: "bob@contoso.test",
      operation: "UserLoggedIn",
    }),
    azureAdRecord({
      id: "aad-fail",
      at: ago(26 * HOUR),
      user: "bob@contoso.test",
      operation: "UserLoginFailed",
    }),
    azureAdRecord({
      id: "aad-consent",
      at: ago(5 * HOUR),
      user: "alice@contoso.test",
      operation: "Consent to application.",
      appId: "0f6e1b5c-7c3a-4c55-9d7e-2a1b3c4d5e6f",
    }),
  ];
  const spBlobs = blobsOf("Audit.SharePoint", sharePoint, { perBlob: 1 });
  // The feed can deliver a record twice, in two blobs.
  const dup = spBlobs.find((b) => b.records[0]?.Id === "sp-del");
  if (dup) spBlobs.push({ ...dup, contentId: `${dup.contentId}-again`, created: ago(HOUR).toISOString() });
  return [...spBlobs, ...blobsOf("Audit.AzureActiveDirectory", aad, { perBlob: 2 })];
}

describe("Microsoft 365 audit activity (Office 365 Management Activity API)", () => {
  it("starts the subscriptions, reads each window's content page by page, dedupes and maps", async () => {
    const s = await start({ blobs: auditContent() }, 2);
    const adapter = adapterFor(s);
    const events = await collect(adapter.activity(SINCE));
    const audit = events.filter((e) => !e.id.startsWith("s-"));
    expect(audit.map((e) => `${e.id}:${e.type}:${e.target ?? ""}`).sort()).toEqual([
      "aad-consent:oauth_grant:0f6e1b5c-7c3a-4c55-9d7e-2a1b3c4d5e6f",
      "aad-login:login:",
      "sp-anon:share_external:anyone",
      "sp-del:file_delete:",
      "sp-dl:download:",
      "sp-share:share_external:bob@partner.example",
      "sp-view:file_access:",
    ]);
    expect(audit.find((e) => e.id === "sp-view")?.actorEmail).toBe("alice@contoso.test");
    // Graph sign-ins come first, as before.
    expect(events.some((e) => e.id === "s-alice" && e.type === "login")).toBe(true);

    expect(s.o365.started).toEqual([...CONTENT_TYPES]);
    expect(adapter.coverageGaps()).toEqual([
      expect.objectContaining({ missing: "Audit subscriptions just started" }),
    ]);
    const listings = s.o365.requests.filter((r) => r.path.endsWith("/subscriptions/content"));
    for (const r of listings) {
      const startTime = Date.parse(`${r.query.get("startTime")}Z`);
      const endTime = Date.parse(`${r.query.get("endTime")}Z`);
      expect(endTime - startTime).toBeLessThanOrEqual(DAY);
      expect(startTime).toBeGreaterThanOrEqual(now - 7 * DAY);
      expect(r.query.get("PublisherIdentifier")).toBe(GRAPH_TENANT_ID);
    }
    // Paged through NextPageUri (two blobs a page), every window of every content type listed.
    expect(listings.some((r) => r.query.get("nextPage"))).toBe(true);
    expect(new Set(listings.map((r) => r.query.get("contentType")))).toEqual(new Set(CONTENT_TYPES));
    // Every token the feed saw was for its own audience; Graph got its own.
    expect(s.o365.requests.filter((r) => r.path.includes("/activity/feed/")).length).toBeGreaterThan(0);
  });

  it("does not restart enabled subscriptions, and takes AF20024 (already enabled) as success", async () => {
    const s = await start({ subscriptions: [...CONTENT_TYPES], blobs: auditContent() });
    // A stale list (Audit.General enabled meanwhile by another reader): starting it answers AF20024.
    s.o365.injectFault({
      status: 200,
      count: 1,
      pathPrefix: `/api/v1.0/${GRAPH_TENANT_ID}/activity/feed/subscriptions/list`,
      body: [
        { contentType: "Audit.SharePoint", status: "enabled", webhook: null },
        { contentType: "Audit.AzureActiveDirectory", status: "enabled", webhook: null },
      ],
    });
    const adapter = adapterFor(s);
    const events = await collect(adapter.activity(SINCE));
    expect(events.some((e) => e.id === "sp-share")).toBe(true);
    expect(s.o365.started).toEqual([]);
    expect(adapter.coverageGaps()).toEqual([]);
    const starts = s.o365.requests.filter((r) => r.path.endsWith("/subscriptions/start"));
    expect(starts.map((r) => r.query.get("contentType"))).toEqual(["Audit.General"]);
  });

  it("fetches a fresh token when the cached one has expired", async () => {
    const s = await start({ subscriptions: [...CONTENT_TYPES], blobs: auditContent() });
    const adapter = adapterFor(s);
    const first = await collect(adapter.activity(SINCE));
    s.o365.expireTokens();
    const second = await collect(adapter.activity(SINCE));
    expect(second.map((e) => e.id).sort()).toEqual(first.map((e) => e.id).sort());
    expect(adapter.coverageGaps()).toEqual([]);
    const tokenRequests = s.o365.requests.filter((r) => r.path.endsWith("/oauth2/v2.0/token"));
    expect(tokenRequests.filter((r) => r.body.includes("manage.office.com"))).toHaveLength(2);
  });

  it("waits out 429 with Retry-After and still reads everything", async () => {
    const s = await start({ subscriptions: [...CONTENT_TYPES], blobs: auditContent() });
    s.o365.injectFault({
      status: 429,
      count: 2,
      retryAfter: 3,
      pathPrefix: `/api/v1.0/${GRAPH_TENANT_ID}/activity/feed/audit/`,
    });
    const { delays, http } = recordingSleep();
    const events = await collect(adapterFor(s, http).activity(SINCE));
    expect(delays).toEqual([3000, 3000]);
    expect(events.filter((e) => e.id.startsWith("sp-") || e.id.startsWith("aad-"))).toHaveLength(7);
  });

  it("the feed down after its retries: a coverage gap, never a failed scan", async () => {
    const s = await start({ subscriptions: [...CONTENT_TYPES], blobs: auditContent() });
    s.o365.injectFault({
      status: 503,
      count: 100,
      pathPrefix: `/api/v1.0/${GRAPH_TENANT_ID}/activity/feed/subscriptions/content`,
    });
    const { http } = recordingSleep();
    const adapter = adapterFor(s, http);
    const events = await collect(adapter.activity(SINCE));
    expect(events.map((e) => e.id).sort()).toEqual(["s-admin", "s-alice"]);
    expect(adapter.coverageGaps()).toEqual([
      expect.objectContaining({ missing: "Office 365 Management Activity API unavailable" }),
    ]);
  });

  it("without ActivityFeed.Read: a coverage gap, and sign-ins still arrive", async () => {
    const s = await start({ withoutPermission: true, blobs: auditContent() });
    const adapter = adapterFor(s);
    const events = await collect(adapter.activity(SINCE));
    expect(events.map((e) => e.id).sort()).toEqual(["s-admin", "s-alice"]);
    const gaps = adapter.coverageGaps();
    expect(gaps).toHaveLength(1);
    expect(gaps[0]?.missing).toBe("ActivityFeed.Read (Office 365 Management APIs)");
    expect(gaps[0]?.detail).toContain("AF10001");
  });

  it("with the audit log off: a coverage gap naming it, and sign-ins still arrive", async () => {
    const s = await start({ auditLogOff: true, blobs: auditContent() });
    const adapter = adapterFor(s);
    const events = await collect(adapter.activity(SINCE));
    expect(events.map((e) => e.id).sort()).toEqual(["s-admin", "s-alice"]);
    expect(adapter.coverageGaps()).toEqual([
      expect.objectContaining({ missing: "Unified audit log (Microsoft Purview audit)" }),
    ]);
  });
});

describe("the connect-time check of the feed", () => {
  const reader = (s: { graph: TFakeGraph; o365: TFakeO365Activity }) =>
    createManagementActivity({
      credentials: { tenantId: GRAPH_TENANT_ID, clientId: CLIENT_ID, clientSecret: SECRET },
      loginBaseUrl: s.o365.url,
      manageBaseUrl: s.o365.url,
      internalDomains: async () => ["contoso.test"],
      onGap: () => undefined,
    });

  it("starts the subscriptions and answers granted", async () => {
    const s = await start();
    const check = await reader(s).checkAccess();
    expect(check).toMatchObject({ permission: "ActivityFeed.Read", granted: true });
    expect(check.detail).toContain("12 hours");
    expect(s.o365.started).toEqual([...CONTENT_TYPES]);
    // Connected again later: nothing to start, nothing to say.
    expect((await reader(s).checkAccess()).detail).toBeUndefined();
  });

  it("answers not granted, saying why, without ActivityFeed.Read or with the audit log off", async () => {
    const denied = await reader(await start({ withoutPermission: true })).checkAccess();
    expect(denied).toMatchObject({ permission: "ActivityFeed.Read", granted: false });
    expect(denied.detail).toContain("AF10001");
    const off = await reader(await start({ auditLogOff: true })).checkAccess();
    expect(off.granted).toBe(false);
    expect(off.detail).toContain("audit log");
  });
});

describe("the Office 365 Management Activity API fake refuses what the API refuses", () => {
  async function tokenFor(s: TFakeO365Activity, scope: string): Promise<string> {
    const res = await fetch(`${s.url}/${GRAPH_TENANT_ID}/oauth2/v2.0/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: CLIENT_ID,
        client_secret: SECRET,
        scope,
      }).toString(),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  async function call(s: TFakeO365Activity, token: string, path: string, method = "GET") {
    const res = await fetch(`${s.url}/api/v1.0/${GRAPH_TENANT_ID}/activity/feed/${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
    return {
      status: res.status,
      body: (await res.json()) as { error?: { code?: string } },
      headers: res.headers,
    };
  }

  it("refuses a Graph-audience token, bad windows, unsubscribed types and a second start", async () => {
    const o365 = await startFakeO365Activity({
      fixture: { tenantId: GRAPH_TENANT_ID, subscriptions: ["Audit.SharePoint"], blobs: auditContent() },
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    servers.push(o365);
    const graphToken = await tokenFor(o365, "https://graph.microsoft.com/.default");
    expect((await call(o365, graphToken, "subscriptions/list")).status).toBe(401);

    const token = await tokenFor(o365, "https://manage.office.com/.default");
    expect((await call(o365, token, "subscriptions/list")).body).toEqual([
      { contentType: "Audit.SharePoint", status: "enabled", webhook: null },
    ]);
    const iso = (d: Date) => d.toISOString().slice(0, 19);
    const content = (start: Date, end: Date | null, type = "Audit.SharePoint") =>
      call(
        o365,
        token,
        `subscriptions/content?contentType=${type}&startTime=${iso(start)}${end ? `&endTime=${iso(end)}` : ""}`,
      );
    const tooWide = await content(ago(30 * HOUR), ago(0));
    expect(tooWide.status).toBe(400);
    expect(tooWide.body.error?.code).toBe("AF20030");
    const tooOld = await content(ago(8 * DAY), ago(8 * DAY - HOUR));
    expect(tooOld.body.error?.code).toBe("AF20030");
    expect((await content(ago(HOUR), null)).body.error?.code).toBe("AF20030");
    expect((await content(ago(HOUR), ago(0), "Audit.General")).body.error?.code).toBe("AF20022");
    expect((await content(ago(HOUR), ago(0), "Audit.Nothing")).body.error?.code).toBe("AF20020");
    const ok = await content(ago(DAY), ago(0));
    expect(ok.status).toBe(200);

    const again = await call(o365, token, "subscriptions/start?contentType=Audit.SharePoint", "POST");
    expect(again.status).toBe(400);
    expect(again.body.error?.code).toBe("AF20024");
    const fresh = await call(o365, token, "subscriptions/start?contentType=Audit.General", "POST");
    expect(fresh.status).toBe(200);
    expect(o365.started).toEqual(["Audit.General"]);
  });
});
