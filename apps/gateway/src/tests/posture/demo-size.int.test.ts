import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { connectors } from "@posture/db";
import { startTestGateway, type TTestGateway, type TTestResponse } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// POST /api/connectors {mode: "demo", demo: {files, users}}: a sandbox of the size asked for,
// stored in the connector's config at revision 0, shown by the list, documented in the OpenAPI.
type TDemo = { files: number; users: number; revision: number };
type TConnector = { id: string; mode: string; demo: TDemo | null };

let gw: TTestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

describe("a demo connector's size", () => {
  let cookie = "";
  beforeAll(async () => {
    cookie = (await gw.createActor({ plan: "enterprise" })).cookie;
  });
  const connect = (body: Record<string, unknown>) =>
    gw.request("POST", "/api/connectors", {
      cookie,
      ip: freshIp(),
      body: { type: "google_workspace", displayName: "Sandbox", ...body },
    });
  const expectInvalid = (res: TTestResponse, path: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(errorCode(res)).toBe("invalid_input");
    const details = (res.body as { details?: Array<{ path: string }> }).details ?? [];
    expect(details.map((d) => d.path)).toContain(path);
  };

  it("creates a sized sandbox, stores its size at revision 0, lists it, and a scan reads that size", async () => {
    const created = await connect({ mode: "demo", demo: { files: 500, users: 40 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const connector = created.body as TConnector;
    expect(connector.demo).toEqual({ files: 500, users: 40, revision: 0 });
    const [row] = await gw.db.db.select().from(connectors).where(eq(connectors.id, connector.id));
    expect(row?.config).toEqual({ fileCount: 500, userCount: 40, revision: 0 });

    const listed = await gw.request("GET", "/api/connectors", { cookie, ip: freshIp() });
    const mine = (listed.body as { connectors: TConnector[] }).connectors.find((c) => c.id === connector.id);
    expect(mine?.demo).toEqual({ files: 500, users: 40, revision: 0 });

    const scan = await gw.request("POST", `/api/connectors/${connector.id}/sync`, { cookie, ip: freshIp() });
    expect(scan.status, JSON.stringify(scan.body)).toBe(200);
    // 500 files and 40 users, plus the drives and grants.
    expect((scan.body as { resources: number }).resources).toBeGreaterThan(540);
  });

  it("defaults to 2,000 files and one user per 40, and takes a million files", async () => {
    const plain = await connect({ mode: "demo" });
    expect(plain.status).toBe(201);
    expect((plain.body as TConnector).demo).toEqual({ files: 2000, users: 50, revision: 0 });
    const big = await connect({ mode: "demo", demo: { files: 1_000_000 } });
    expect(big.status, JSON.stringify(big.body)).toBe(201);
    expect((big.body as TConnector).demo).toEqual({ files: 1_000_000, users: 25_000, revision: 0 });
    const usersOnly = await connect({ mode: "demo", demo: { users: 25 } });
    expect((usersOnly.body as TConnector).demo).toEqual({ files: 2000, users: 25, revision: 0 });
  });

  it("refuses sizes out of bounds", async () => {
    expectInvalid(await connect({ mode: "demo", demo: { files: 0 } }), "demo.files");
    expectInvalid(await connect({ mode: "demo", demo: { files: 1_000_001 } }), "demo.files");
    expectInvalid(await connect({ mode: "demo", demo: { users: 24 } }), "demo.users");
    expectInvalid(await connect({ mode: "demo", demo: { users: 100_001 } }), "demo.users");
  });

  it("refuses wrong types and unknown fields", async () => {
    expectInvalid(await connect({ mode: "demo", demo: { files: "many" } }), "demo.files");
    expectInvalid(await connect({ mode: "demo", demo: { files: 10.5 } }), "demo.files");
    expectInvalid(await connect({ mode: "demo", demo: { files: null } }), "demo.files");
    expectInvalid(await connect({ mode: "demo", demo: { users: "40" } }), "demo.users");
    expectInvalid(await connect({ mode: "demo", demo: { size: 10 } }), "demo.size");
    expectInvalid(await connect({ mode: "demo", demo: 500 }), "demo");
    expectInvalid(await connect({ mode: "demo", demo: [500] }), "demo");
  });

  it("refuses a size for a real connector, and a size given twice", async () => {
    const real = await connect({
      type: "microsoft_365",
      mode: "real",
      credentials: { tenantId: "t", clientId: "c", clientSecret: "s" },
      demo: { files: 10 },
    });
    expectInvalid(real, "demo");
    expectInvalid(
      await connect({ mode: "demo", demo: { files: 10 }, config: { fileCount: 10 } }),
      "config.fileCount",
    );
    const none = await gw.request("GET", "/api/connectors", { cookie, ip: freshIp() });
    const names = (none.body as { connectors: Array<{ mode: string }> }).connectors.map((c) => c.mode);
    expect(names.every((m) => m === "demo")).toBe(true);
  });

  it("is documented in the OpenAPI document, bounds included", async () => {
    const res = await gw.request("GET", "/api/openapi.json", { ip: freshIp() });
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    const doc = res.body as {
      paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: unknown }> } } }>;
    };
    const path = Object.keys(doc.paths).find((p) => p.endsWith("/connectors"));
    const schema = JSON.stringify(
      doc.paths[path ?? ""]?.post?.requestBody?.content["application/json"]?.schema,
    );
    expect(schema).toContain('"demo"');
    expect(schema).toContain("1000000");
    expect(schema).toContain("100000");
    expect(text).toContain("A demo source's size and revision");
  });
});
