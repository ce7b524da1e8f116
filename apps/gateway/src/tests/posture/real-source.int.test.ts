import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGraph, type TFakeGraph } from "@posture/fakes/graph";
import { buildGraphFixture } from "@posture/fakes/graph-fixture";
import { startTestGateway, type TTestGateway } from "../../testing";

// A real-mode Microsoft 365 connector scanned through the whole stack against a local Graph fake.
let gw: TTestGateway;
let graph: TFakeGraph;
const fixture = buildGraphFixture();
const CLIENT_ID = "0f0e0d0c-0000-4000-8000-000000000001";
const CLIENT_SECRET = "fake-graph-secret-value";

beforeAll(async () => {
  graph = await startFakeGraph({ fixture, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  gw = await startTestGateway({
    sourceEndpoints: {
      microsoft: { graphBaseUrl: graph.url, loginBaseUrl: graph.url, manageBaseUrl: graph.url },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await graph.close();
});

describe("real-mode connector", () => {
  it("scans the source, and credentials it refuses turn the connector unhealthy", async () => {
    const a = await gw.createActor({ plan: "business" });
    const create = (clientSecret: string) =>
      gw.request("POST", "/api/connectors", {
        cookie: a.cookie,
        body: {
          type: "microsoft_365",
          displayName: "Contoso",
          mode: "real",
          credentials: { tenantId: fixture.tenantId, clientId: CLIENT_ID, clientSecret },
        },
      });
    const good = await create(CLIENT_SECRET);
    expect(good.status).toBe(201);
    expect(JSON.stringify(good.body)).not.toContain(CLIENT_SECRET);
    const { id } = good.body as { id: string };
    const scan = await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie });
    expect(scan.status).toBe(200);
    expect(scan.body).toMatchObject({ status: "COMPLETE" });
    expect((scan.body as { resources: number }).resources).toBeGreaterThan(0);

    const bad = await create("wrong-secret");
    const badId = (bad.body as { id: string }).id;
    const failed = await gw.request("POST", `/api/connectors/${badId}/sync`, { cookie: a.cookie });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: "upstream_unavailable" });
    const list = await gw.request("GET", "/api/connectors", { key: a.key });
    const byId = new Map(
      (list.body as { connectors: Array<{ id: string; healthStatus: string }> }).connectors.map((c) => [
        c.id,
        c,
      ]),
    );
    expect(byId.get(id)?.healthStatus).toBe("healthy");
    expect(byId.get(badId)?.healthStatus).toBe("unhealthy");
  });

  it("rejects malformed credentials with per-field details", async () => {
    const a = await gw.createActor({ plan: "business" });
    const res = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: {
        type: "microsoft_365",
        displayName: "Bad",
        mode: "real",
        credentials: { tenantId: "not a tenant" },
      },
    });
    expect(res.status).toBe(400);
    const paths = (res.body as { details: Array<{ path: string }> }).details.map((d) => d.path);
    expect(paths.some((p) => p.startsWith("credentials."))).toBe(true);
  });
});
