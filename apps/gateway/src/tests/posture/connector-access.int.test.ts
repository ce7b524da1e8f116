import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOOGLE_ACCESS, MICROSOFT_ACCESS } from "@posture/connectors";
import { startFakeGraph, type TFakeGraph } from "@posture/fakes/graph";
import { buildGraphFixture } from "@posture/fakes/graph-fixture";
import { freePort } from "@posture/platform/testing";
import { startTestGateway, type TTestGateway } from "../../testing";

// POST /api/connectors asks the source which permissions it grants, stores the answer on the
// connector and returns it (and GET /api/connectors with it); a source it cannot reach still connects.
type TAccess = {
  granted: Array<{ feature: string; permission: string }>;
  missing: Array<{ feature: string; permission: string; impact: string; detail?: string }>;
};
type TConnector = { id: string; access: TAccess | null };

const CLIENT_ID = "0f0e0d0c-0000-4000-8000-000000000001";
const CLIENT_SECRET = "fake-graph-secret-value";
const fixture = buildGraphFixture();
let gw: TTestGateway;
let graph: TFakeGraph;

beforeAll(async () => {
  graph = await startFakeGraph({ fixture, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  // Nothing listens on this port: the Google endpoints cannot be reached.
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  gw = await startTestGateway({
    sourceEndpoints: {
      microsoft: { graphBaseUrl: graph.url, loginBaseUrl: graph.url, manageBaseUrl: graph.url },
      google: { driveBaseUrl: nowhere, adminBaseUrl: nowhere, tokenUrl: `${nowhere}/token` },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await graph.close();
});

const permissions = (list: Array<{ permission: string }>) => list.map((r) => r.permission).sort();

describe("connect-time access check", () => {
  it("returns and stores the access of demo and real connectors, and a sync answers its coverage", async () => {
    const a = await gw.createActor({ plan: "business" });
    const connect = (body: Record<string, unknown>) =>
      gw.request("POST", "/api/connectors", { cookie: a.cookie, body });

    const demo = await connect({ type: "google_workspace", displayName: "Demo", mode: "demo" });
    expect(demo.status).toBe(201);
    const demoAccess = (demo.body as TConnector).access;
    expect(demoAccess?.missing).toEqual([]);
    expect(permissions(demoAccess?.granted ?? [])).toEqual(permissions([...GOOGLE_ACCESS]));

    const real = await connect({
      type: "microsoft_365",
      displayName: "Contoso",
      mode: "real",
      credentials: { tenantId: fixture.tenantId, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    });
    expect(real.status, JSON.stringify(real.body)).toBe(201);
    const realAccess = (real.body as TConnector).access;
    expect(realAccess).not.toBeNull();
    expect(permissions([...(realAccess?.granted ?? []), ...(realAccess?.missing ?? [])])).toEqual(
      permissions([...MICROSOFT_ACCESS]),
    );

    const unreachable = await connect({
      type: "google_workspace",
      displayName: "Unreachable",
      mode: "real",
      credentials: { accessToken: "ya29.test-token" },
    });
    expect(unreachable.status, JSON.stringify(unreachable.body)).toBe(201);
    const unknown = (unreachable.body as TConnector).access;
    expect(permissions([...(unknown?.granted ?? []), ...(unknown?.missing ?? [])])).toEqual(
      permissions([...GOOGLE_ACCESS]),
    );
    for (const m of unknown?.missing ?? []) expect(m.detail).toBeTruthy();

    const list = await gw.request("GET", "/api/connectors", { key: a.key });
    expect(list.status).toBe(200);
    const byId = new Map((list.body as { connectors: TConnector[] }).connectors.map((c) => [c.id, c.access]));
    expect(byId.get((demo.body as TConnector).id)).toEqual(demoAccess);
    expect(byId.get((real.body as TConnector).id)).toEqual(realAccess);
    expect(byId.get((unreachable.body as TConnector).id)).toEqual(unknown);

    const scan = await gw.request("POST", `/api/connectors/${(demo.body as TConnector).id}/sync`, {
      cookie: a.cookie,
    });
    expect(scan.status).toBe(200);
    // The demo tenant's settings all read: nothing missing.
    expect(scan.body).toMatchObject({ status: "COMPLETE", coverage: [] });
    const { scanId } = scan.body as { scanId: string };
    const got = await gw.request("GET", `/api/connectors/${(demo.body as TConnector).id}/scans/${scanId}`, {
      key: a.key,
    });
    expect(got.body).toEqual(scan.body);
  });
});
