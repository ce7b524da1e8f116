import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGoogle, type TFakeGoogle } from "@posture/fakes/google";
import { buildGoogleFixture, generateServiceAccount } from "@posture/fakes/google-fixture";
import { startFakeGraph, type TFakeGraph } from "@posture/fakes/graph";
import { buildGraphFixture } from "@posture/fakes/graph-fixture";
import { startTestGateway, type TTestGateway } from "../../testing";
import { body, client } from "./harness";

// Real-mode connectors, read from local fakes of Google's and Microsoft's APIs, fill the resource
// store like the demo does: inventory, sharing, graph and agents all come from what they read.
const CLIENT_ID = "0f0e0d0c-0000-4000-8000-000000000001";
const CLIENT_SECRET = "fake-graph-secret-value";
const googleFixture = buildGoogleFixture();
const graphFixture = buildGraphFixture();
const account = generateServiceAccount("admin@acme.test");
let gw: TTestGateway;
let google: TFakeGoogle;
let graph: TFakeGraph;

beforeAll(async () => {
  google = await startFakeGoogle({
    fixture: googleFixture,
    serviceAccounts: [{ clientEmail: account.credentials.clientEmail, publicKey: account.publicKey }],
  });
  graph = await startFakeGraph({ fixture: graphFixture, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  gw = await startTestGateway({
    sourceEndpoints: {
      google: google.endpoints,
      microsoft: { graphBaseUrl: graph.url, loginBaseUrl: graph.url, manageBaseUrl: graph.url },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await google.close();
  await graph.close();
});

type TRows = { rows: Array<Record<string, unknown>>; total: number };

let lastScan = "";

async function connectAndScan(c: ReturnType<typeof client>, body: Record<string, unknown>) {
  const created = await c.post("/api/connectors", body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = (created.body as { id: string }).id;
  const scan = await c.post(`/api/connectors/${id}/sync`, undefined);
  expect(scan.status, JSON.stringify(scan.body)).toBe(200);
  expect(scan.body).toMatchObject({ status: "COMPLETE" });
  lastScan = (scan.body as { scanId: string }).scanId;
  return id;
}

describe("real adapters fill the resource store", () => {
  it("Google Workspace, connected with the service-account key file as downloaded", async () => {
    const a = await gw.createActor({ plan: "business" });
    const c = client(gw, a.cookie);
    await connectAndScan(c, {
      type: "google_workspace",
      displayName: "Acme",
      mode: "real",
      credentials: {
        type: "service_account",
        project_id: "posture-test",
        client_email: account.credentials.clientEmail,
        private_key: account.credentials.privateKey,
        subject: "admin@acme.test",
      },
    });
    const users = body<TRows>(await c.get("/api/inventory?type=users&limit=200"));
    expect(users.total).toBe(googleFixture.users.length);
    expect(users.rows.find((u) => u.email === "admin@acme.test")).toMatchObject({
      isAdmin: true,
      mfaEnabled: true,
    });
    const files = body<TRows>(await c.get("/api/inventory?type=files&limit=200"));
    // Trashed files are not part of the workspace a scan reads.
    expect(files.total).toBe(googleFixture.files.filter((f) => !f.trashed).length);
    expect(files.rows.some((f) => f.sharing === "public")).toBe(true);
    expect(files.rows.some((f) => f.sharing === "external")).toBe(true);
    const drives = body<TRows>(await c.get("/api/inventory?type=shared-drives"));
    expect(drives.total).toBeGreaterThan(0);
    const items = body<TRows>(await c.get("/api/sharing/items?limit=500"));
    expect(new Set(items.rows.map((i) => i.sharingType))).toEqual(
      new Set(["public", "external_user", "external_domain"]),
    );
    // acme-labs.test is one of the tenant's own domains: shares to it are internal, never listed.
    expect(items.rows.some((i) => String(i.target).endsWith("acme-labs.test"))).toBe(false);
    const graphPage = body<{ nodes: Array<{ type: string }> }>(await c.get("/api/flow-guard/graph"));
    expect(graphPage.nodes.some((n) => n.type === "public_link")).toBe(true);
    const agents = body<{ agents: Array<{ kind: string; label: string }> }>(
      await c.get("/api/agent-guard/inventory"),
    );
    expect(agents.agents.map((x) => x.kind)).toEqual(
      expect.arrayContaining(["oauth_app", "service_account"]),
    );
    // A display name no longer makes an agent (issue 30): "ChatGPT"'s client id is in no catalog.
    expect(agents.agents.find((x) => x.label === "ChatGPT")?.kind).toBe("oauth_app");
  });

  it("Microsoft 365", async () => {
    const a = await gw.createActor({ plan: "business" });
    const c = client(gw, a.cookie);
    await connectAndScan(c, {
      type: "microsoft_365",
      displayName: "Contoso",
      mode: "real",
      credentials: { tenantId: graphFixture.tenantId, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    });
    const users = body<TRows>(await c.get("/api/inventory?type=users&limit=200"));
    expect(users.total).toBeGreaterThan(0);
    const files = body<TRows>(await c.get("/api/inventory?type=files&limit=200"));
    expect(files.total).toBeGreaterThan(0);
    const items = body<TRows>(await c.get("/api/sharing/items?limit=500"));
    expect(items.total).toBeGreaterThan(0);
    const agents = body<{ agents: unknown[] }>(await c.get("/api/agent-guard/inventory"));
    expect(agents.agents.length).toBeGreaterThan(0);
  });
});

describe("a Microsoft 365 tenant without Entra ID P1/P2", () => {
  let basic: TFakeGraph;
  let gateway: TTestGateway;
  beforeAll(async () => {
    basic = await startFakeGraph({
      fixture: { ...graphFixture, entraPremium: false },
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
    });
    gateway = await startTestGateway({
      sourceEndpoints: {
        microsoft: { graphBaseUrl: basic.url, loginBaseUrl: basic.url, manageBaseUrl: basic.url },
      },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await basic.close();
  });

  it("lists its users with MFA and last sign-in unknown, never as missing, and says why", async () => {
    const a = await gateway.createActor({ plan: "business" });
    const c = client(gateway, a.cookie);
    const id = await connectAndScan(c, {
      type: "microsoft_365",
      displayName: "Contoso basic",
      mode: "real",
      credentials: { tenantId: graphFixture.tenantId, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    });
    const users = body<TRows & { metrics: Record<string, number> }>(
      await c.get("/api/inventory?type=users&limit=200"),
    );
    expect(users.total).toBe(graphFixture.users.length);
    for (const u of users.rows)
      expect({ email: u.email, mfa: u.mfaEnabled, dormant: u.dormant }).toEqual({
        email: u.email,
        mfa: null,
        dormant: false,
      });
    expect(users.metrics).toMatchObject({ mfaUnknown: users.total, withoutMfa: 0 });
    const identity = body<{ findings: Array<{ ruleId: string }> }>(
      await c.get("/api/findings?category=identity&limit=500"),
    );
    expect(identity.findings.map((f) => f.ruleId)).not.toContain("user_without_mfa");
    expect(identity.findings.map((f) => f.ruleId)).not.toContain("dormant_account");
    const scans = body<{ coverage: Array<{ feature: string; missing: string }> }>(
      await c.get(`/api/connectors/${id}/scans/${lastScan}`),
    );
    expect(scans.coverage).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ feature: "MFA registration", missing: "Microsoft Entra ID P1 or P2" }),
        expect.objectContaining({ feature: "Last sign-in", missing: "Microsoft Entra ID P1 or P2" }),
      ]),
    );
  });
});
