import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFakeGraph, type TFakeGraph } from "@posture/fakes/graph";
import { buildGraphFixture } from "@posture/fakes/graph-fixture";
import {
  azureAdRecord,
  blobsOf,
  sharePointRecord,
  startFakeO365Activity,
  type TFakeO365Activity,
} from "@posture/fakes/o365";
import { startTestGateway, type TTestGateway } from "../../testing";

// A real-mode Microsoft 365 connector, scanned over HTTP: its SharePoint, OneDrive and Entra audit
// content (the Office 365 Management Activity API fake) becomes behaviour anomalies.

const CLIENT_ID = "0f0e0d0c-0000-4000-8000-000000000001";
const CLIENT_SECRET = "fake-graph-secret-value";
const HOUR = 3_600_000;
const fixture = buildGraphFixture();
const now = Date.now();
const ago = (ms: number) => new Date(now - ms);

const sharePoint = [
  ...Array.from({ length: 40 }, (_, k) =>
    sharePointRecord({
      id: `share-${k}`,
      at: ago(9 * HOUR - k * 60_000),
      user: "alice@contoso.test",
      operation: "SharingInvitationCreated",
      target: `guest${k}@outside.example`,
      file: `deal-${k}.docx`,
    }),
  ),
  ...Array.from({ length: 200 }, (_, k) =>
    sharePointRecord({
      id: `read-${k}`,
      at: ago(8 * HOUR - k * 10_000),
      user: "bob@contoso.test",
      operation: k % 3 ? "FileAccessed" : "FileDownloaded",
      file: `doc-${k}.pdf`,
    }),
  ),
  ...Array.from({ length: 80 }, (_, k) =>
    sharePointRecord({
      id: `del-${k}`,
      at: ago(7 * HOUR - k * 10_000),
      user: "admin@contoso.test",
      operation: "FileRecycled",
      file: `archive-${k}.xlsx`,
    }),
  ),
];
const entra = Array.from({ length: 6 }, (_, k) =>
  azureAdRecord({
    id: `consent-${k}`,
    at: ago(6 * HOUR - k * 60_000),
    user: "carol@contoso.test",
    operation: "Consent to application.",
    appId: `0f6e1b5c-7c3a-4c55-9d7e-2a1b3c4d5e${String(k).padStart(2, "0")}`,
  }),
);

let gw: TTestGateway;
let graph: TFakeGraph;
let o365: TFakeO365Activity;

beforeAll(async () => {
  graph = await startFakeGraph({ fixture, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  o365 = await startFakeO365Activity({
    fixture: {
      tenantId: fixture.tenantId,
      blobs: [
        ...blobsOf("Audit.SharePoint", sharePoint, { perBlob: 50 }),
        ...blobsOf("Audit.AzureActiveDirectory", entra, { perBlob: 2 }),
      ],
    },
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    graphLoginUrl: graph.url,
  });
  gw = await startTestGateway({
    sourceEndpoints: {
      microsoft: { graphBaseUrl: graph.url, loginBaseUrl: o365.url, manageBaseUrl: o365.url },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await o365.close();
  await graph.close();
});

describe("Microsoft 365 audit activity over HTTP", { timeout: 120_000 }, () => {
  it("a real-mode scan reads the audit feed and the refresh flags the planted behaviour", async () => {
    const a = await gw.createActor({ plan: "business" });
    const created = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: {
        type: "microsoft_365",
        displayName: "Contoso",
        mode: "real",
        credentials: { tenantId: fixture.tenantId, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      },
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const scan = await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie });
    expect(scan.status).toBe(200);
    expect(scan.body).toMatchObject({ status: "COMPLETE" });
    // The scan's activity job, after it, started the three audit subscriptions.
    await vi.waitFor(
      () =>
        expect(new Set(o365.started)).toEqual(
          new Set(["Audit.SharePoint", "Audit.AzureActiveDirectory", "Audit.General"]),
        ),
      { timeout: 30_000, interval: 100 },
    );

    const end = Date.now() + 60_000;
    let kinds: string[] = [];
    while (Date.now() < end) {
      const res = await gw.request("GET", "/api/behavior/anomalies", { key: a.key });
      expect(res.status).toBe(200);
      kinds = (res.body as { anomalies: Array<{ principal: string; type: string }> }).anomalies
        .map((x) => `${x.principal}:${x.type}`)
        .sort();
      if (kinds.length >= 4) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // A first scan has no history of its own: each person is judged against the organization.
    expect(kinds).toEqual([
      "admin@contoso.test:mass_deletion",
      "alice@contoso.test:sharing_spike",
      "bob@contoso.test:bulk_access",
      "carol@contoso.test:oauth_burst",
    ]);
    const filtered = await gw.request("GET", "/api/behavior/anomalies?type=mass_deletion", { key: a.key });
    expect((filtered.body as { anomalies: Array<{ observed: number }> }).anomalies).toMatchObject([
      { observed: 80 },
    ]);
  });

  it("a Microsoft 365 demo tenant shows all five behaviour kinds", async () => {
    const a = await gw.createActor({ plan: "business" });
    const created = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "microsoft_365", displayName: "Demo", mode: "demo", config: { fileCount: 400 } },
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    expect((await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie })).status).toBe(200);
    const end = Date.now() + 60_000;
    let types: string[] = [];
    while (Date.now() < end) {
      const res = await gw.request("GET", "/api/behavior/anomalies", { key: a.key });
      types = (res.body as { anomalies: Array<{ type: string }> }).anomalies.map((x) => x.type).sort();
      if (types.length >= 5) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(types).toEqual([
      "bulk_access",
      "dormant_reactivation",
      "mass_deletion",
      "oauth_burst",
      "sharing_spike",
    ]);
  });
});
