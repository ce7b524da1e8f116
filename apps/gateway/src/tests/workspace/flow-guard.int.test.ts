import { beforeAll, describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";
import { body, client, code, scannedOrg } from "./harness";

type TNode = { id: string; type: string; label: string; riskScore: number };
type TEdge = { id: string; source: string; target: string; scope: string; severity: string };
type TGraph = {
  nodes: TNode[];
  edges: TEdge[];
  summary: { externalFiles: number; publicLinks: number; sharedDrivesExposed: number; riskScore: number };
  metadata: { limit: number; offset: number; totalNodes: number; nextOffset: number | null };
};

const gw = useTestGateway();
let org: Awaited<ReturnType<typeof scannedOrg>>;
beforeAll(async () => {
  org = await scannedOrg(gw, { fileCount: 500 });
});

const graph = async (q = "") => {
  const res = await org.c.get(`/api/flow-guard/graph${q}`);
  expect(res.status).toBe(200);
  return body<TGraph>(res);
};

describe("GET /api/flow-guard/graph", () => {
  it("returns typed nodes riskiest first, edges inside the page, summary and page metadata", async () => {
    const defaults = await graph();
    expect(defaults.metadata).toMatchObject({ limit: 200, offset: 0 });
    expect(defaults.nodes.length).toBe(Math.min(200, defaults.metadata.totalNodes));
    const g = await graph("?limit=60");
    expect(g.metadata.totalNodes).toBeGreaterThan(60);
    expect(g.nodes.length).toBe(60);
    expect(g.metadata.nextOffset).toBe(60);
    for (const n of g.nodes) {
      expect(n.id.startsWith(`${n.type}:`)).toBe(true);
      expect(n.riskScore).toBeGreaterThanOrEqual(0);
      expect(n.riskScore).toBeLessThanOrEqual(100);
    }
    const scores = g.nodes.map((n) => n.riskScore);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const onPage = new Set(g.nodes.map((n) => n.id));
    expect(g.edges.length).toBeGreaterThan(0);
    for (const e of g.edges) {
      expect(onPage.has(e.source) && onPage.has(e.target)).toBe(true);
      expect(["internal", "external", "public"]).toContain(e.scope);
      expect(["CRITICAL", "HIGH", "MEDIUM", "LOW"]).toContain(e.severity);
    }
    expect(g.summary.externalFiles).toBeGreaterThan(0);
    expect(g.summary.publicLinks).toBeGreaterThan(0);
    expect(g.summary.riskScore).toBeGreaterThan(0);
  });

  it("pages through every node exactly once", async () => {
    const first = await graph("?limit=500");
    const total = first.metadata.totalNodes;
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: TGraph = await graph(`?limit=23&offset=${offset}`);
      seen.push(...page.nodes.map((n) => n.id));
      offset = page.metadata.nextOffset;
    }
    expect(seen.length).toBe(total);
    expect(new Set(seen).size).toBe(total);
    const types = new Set(seen.map((id) => id.split(":")[0]));
    expect(types).toEqual(new Set(["user", "external", "file", "public_link", "shared_drive"]));
    // Every public link hangs off its file with a public edge, wherever the two land.
    const all = await graph("?limit=500");
    for (const e of all.edges.filter((x) => x.target.startsWith("public_link:"))) {
      expect(e.scope).toBe("public");
      expect(e.source.slice("file:".length)).toBe(e.target.slice("public_link:".length));
    }
    // A page has every edge between its nodes, no more: the whole graph's, restricted to the page.
    expect(all.nodes.length).toBe(total);
    const page = await graph("?limit=37&offset=11");
    const onPage = new Set(page.nodes.map((n) => n.id));
    const within = all.edges.filter((e) => onPage.has(e.source) && onPage.has(e.target));
    expect(within.length).toBeGreaterThan(0);
    expect(page.edges).toEqual(within);
  });

  it("filters by outside domain and by user", async () => {
    const all = await graph("?limit=500");
    const domainNode = all.nodes.find((n) => n.type === "external");
    const domain = domainNode?.label ?? "";
    const byDomain = await graph(`?limit=500&domain=${encodeURIComponent(domain.toUpperCase())}`);
    expect(byDomain.nodes.map((n) => n.id)).toContain(`external:${domain}`);
    expect(byDomain.nodes.every((n) => ["external", "file", "user", "shared_drive"].includes(n.type))).toBe(
      true,
    );
    expect(byDomain.edges.some((e) => e.target === `external:${domain}`)).toBe(true);
    expect(byDomain.metadata.totalNodes).toBe(byDomain.nodes.length);

    const user = all.nodes.find((n) => n.type === "user");
    const email = user?.label ?? "";
    const byUser = await graph(`?limit=500&userId=${encodeURIComponent(email)}`);
    expect(byUser.nodes.map((n) => n.id)).toContain(`user:${email}`);
    expect(byUser.nodes.filter((n) => n.type === "user").map((n) => n.id)).toEqual([`user:${email}`]);
    expect(byUser.edges.some((e) => e.source === `user:${email}`)).toBe(true);
    const users = body<{ rows: Array<{ id: string; email: string }> }>(
      await org.c.get(`/api/inventory?type=users&search=${encodeURIComponent(email)}`),
    );
    const byId = await graph(`?limit=500&userId=${users.rows.find((u) => u.email === email)?.id ?? ""}`);
    expect(byId.nodes.map((n) => n.id).sort()).toEqual(byUser.nodes.map((n) => n.id).sort());

    const unknown = await org.c.get("/api/flow-guard/graph?userId=nobody@nowhere.example");
    expect(unknown.status).toBe(404);
    expect(code(unknown)).toBe("not_found");
  });

  it("forgets a disconnected source's flows", async () => {
    const other = await scannedOrg(gw, { fileCount: 200 });
    expect(body<TGraph>(await other.c.get("/api/flow-guard/graph")).metadata.totalNodes).toBeGreaterThan(0);
    expect((await other.c.del(`/api/connectors/${other.connectorId}`)).status).toBe(200);
    const after = body<TGraph>(await other.c.get("/api/flow-guard/graph"));
    expect(after).toMatchObject({
      nodes: [],
      edges: [],
      metadata: { totalNodes: 0 },
      summary: { externalFiles: 0, publicLinks: 0 },
    });
    // Another organization's graph is untouched.
    expect(body<TGraph>(await org.c.get("/api/flow-guard/graph")).metadata.totalNodes).toBeGreaterThan(0);
  });

  it("enforces plan, role, session and input rules", async () => {
    for (const q of ["limit=501", "limit=0", "offset=-1", "limit=x"]) {
      const res = await org.c.get(`/api/flow-guard/graph?${q}`);
      expect(res.status, q).toBe(400);
    }
    const team = await gw.createActor({ plan: "team" });
    const upgrade = await client(gw, team.cookie).get("/api/flow-guard/graph");
    expect(upgrade.status).toBe(402);
    expect(code(upgrade)).toBe("plan_upgrade_required");
    const member = await gw.createUser(org.orgId, "member");
    expect(
      (await client(gw, await gw.createSession(org.orgId, member.id)).get("/api/flow-guard/graph")).status,
    ).toBe(403);
    expect((await gw.request("GET", "/api/flow-guard/graph", { key: org.key, ip: freshIp() })).status).toBe(
      403,
    );
    expect((await gw.request("GET", "/api/flow-guard/graph", { ip: freshIp() })).status).toBe(401);
    const other = await gw.createActor({ plan: "business" });
    const empty = body<TGraph>(await client(gw, other.cookie).get("/api/flow-guard/graph"));
    expect(empty).toMatchObject({ nodes: [], edges: [], metadata: { totalNodes: 0, nextOffset: null } });
  });
});
