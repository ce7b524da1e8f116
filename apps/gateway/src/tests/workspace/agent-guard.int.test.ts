import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { activityEvents, connectors, oauthGrantEvents, oauthGrants } from "@posture/db";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";
import { body, client, code, scannedOrg } from "./harness";

type TCard = {
  id: string;
  label: string;
  kind: string;
  riskBand: string;
  riskScore: number;
  resourceCount: number;
  isKnownPublisher: boolean;
  quadrant: string;
  clientId: string;
  broad: boolean;
};
type TInventory = {
  agents: TCard[];
  metrics: { total: number; unvettedBroad: number } & Record<string, number>;
};
type TMatrix = {
  points: Array<{ id: string; quadrant: string; riskScore: number }>;
  quadrantCounts: Record<string, number>;
};
type TTimeline = {
  agentId: string;
  activityAvailable: boolean;
  events: Array<{ kind: string; at: string; principal: string }>;
};

const gw = useTestGateway();
let org: Awaited<ReturnType<typeof scannedOrg>>;
beforeAll(async () => {
  org = await scannedOrg(gw, { plan: "team", fileCount: 400 });
});

describe("agent guard", () => {
  it("lists one card per app with risk bands, publisher trust and reach", async () => {
    const inv = body<TInventory>(await org.c.get("/api/agent-guard/inventory"));
    expect(inv.agents.length).toBeGreaterThan(3);
    expect(inv.metrics.total).toBe(inv.agents.length);
    expect(inv.metrics.unvettedBroad).toBe(inv.agents.filter((a) => a.quadrant === "unknown_broad").length);
    expect(new Set(inv.agents.map((a) => a.id)).size).toBe(inv.agents.length);
    expect(inv.agents.some((a) => a.kind === "ai_agent")).toBe(true);
    for (const a of inv.agents) {
      expect(["low", "medium", "high", "critical"]).toContain(a.riskBand);
      expect(a.quadrant).toBe(
        `${a.isKnownPublisher ? "trusted" : "unknown"}_${a.broad ? "broad" : "limited"}`,
      );
      expect(a.resourceCount).toBeGreaterThanOrEqual(0);
    }
    const scores = inv.agents.map((a) => a.riskScore);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    expect(inv.agents.some((a) => a.resourceCount >= 400)).toBe(true);
  });

  it("places every agent in one quadrant; counts equal the points", async () => {
    const inv = body<TInventory>(await org.c.get("/api/agent-guard/inventory"));
    const m = body<TMatrix>(await org.c.get("/api/agent-guard/risk-matrix"));
    expect(Object.keys(m.quadrantCounts).sort()).toEqual([
      "trusted_broad",
      "trusted_limited",
      "unknown_broad",
      "unknown_limited",
    ]);
    expect(Object.values(m.quadrantCounts).reduce((a, b) => a + b, 0)).toBe(m.points.length);
    expect(m.points.map((p) => p.id).sort()).toEqual(inv.agents.map((a) => a.id).sort());
    for (const q of Object.keys(m.quadrantCounts))
      expect(m.quadrantCounts[q]).toBe(m.points.filter((p) => p.quadrant === q).length);
  });

  it("keeps agent ids across rescans and records scope changes and token activity in the timeline", async () => {
    const before = body<TInventory>(await org.c.get("/api/agent-guard/inventory")).agents;
    const agent = before[0];
    expect(agent).toBeDefined();
    const id = agent?.id ?? "";
    const t1 = body<TTimeline>(await org.c.get(`/api/agent-guard/timeline/${id}`));
    expect(t1).toMatchObject({ agentId: id, activityAvailable: true });
    expect(t1.events.some((e) => e.kind === "grant")).toBe(true);

    // Token activity recorded by the activity ingest shows up; a scope change is recorded scan over scan.
    await gw.db.db.insert(activityEvents).values({
      orgId: org.orgId,
      connectorId: org.connectorId,
      externalId: `tok-${id}`,
      principal: "someone@example.test",
      kind: "token",
      at: new Date(),
      target: agent?.clientId ?? "",
      count: 3,
    });
    expect((await org.c.post(`/api/connectors/${org.connectorId}/sync`, undefined)).status).toBe(200);
    const after = body<TInventory>(await org.c.get("/api/agent-guard/inventory")).agents;
    expect(after.map((a) => a.id)).toContain(id);
    const t2 = body<TTimeline>(await org.c.get(`/api/agent-guard/timeline/${id}`));
    expect(t2.events[0]?.kind).toBe("token_activity");
    const ats = t2.events.map((e) => e.at);
    expect([...ats].sort().reverse()).toEqual(ats);

    // Last scan saw narrower scopes for one of its grants, and a grant that is gone now: the next
    // scan records a scope change and a revocation.
    const [grant] = await gw.db.db
      .select()
      .from(oauthGrants)
      .where(eq(oauthGrants.clientId, agent?.clientId ?? ""));
    await gw.db.db
      .update(oauthGrants)
      .set({ scopes: ["openid"] })
      .where(eq(oauthGrants.id, grant?.id ?? ""));
    await gw.db.db.insert(oauthGrants).values({
      orgId: org.orgId,
      connectorId: org.connectorId,
      externalId: "gone-grant",
      clientId: agent?.clientId ?? "",
      label: agent?.label ?? "",
      kind: "oauth_app",
      publisher: "x",
      isKnownPublisher: false,
      scopes: ["openid"],
      userEmail: "left@example.test",
      grantedAt: new Date("2026-01-01T00:00:00Z"),
    });
    expect((await org.c.post(`/api/connectors/${org.connectorId}/sync`, undefined)).status).toBe(200);
    const history = await gw.db.db
      .select()
      .from(oauthGrantEvents)
      .where(eq(oauthGrantEvents.orgId, org.orgId));
    expect(history.map((h) => [h.kind, h.grantExternalId]).sort()).toEqual([
      ["revoked", "gone-grant"],
      ["scopes_changed", grant?.externalId ?? ""],
    ]);
    const t3 = body<TTimeline>(await org.c.get(`/api/agent-guard/timeline/${id}`));
    expect(t3.events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(["grant", "scope_change", "revoked", "token_activity"]),
    );
  });

  it("says when activity is unavailable: a real connector without the reports scope", async () => {
    const inv = body<TInventory>(await org.c.get("/api/agent-guard/inventory"));
    // Written to the database directly: the read caches are told, as for any out-of-band change.
    await gw.db.db.update(connectors).set({ mode: "real" }).where(eq(connectors.id, org.connectorId));
    await gw.publishDataChanges(org.orgId);
    const t = body<TTimeline>(await org.c.get(`/api/agent-guard/timeline/${inv.agents[0]?.id ?? ""}`));
    expect(t.activityAvailable).toBe(false);
    expect(t.events.some((e) => e.kind === "token_activity")).toBe(false);
    await gw.db.db
      .update(connectors)
      .set({
        config: { fileCount: 400, scopes: ["https://www.googleapis.com/auth/admin.reports.audit.readonly"] },
      })
      .where(eq(connectors.id, org.connectorId));
    await gw.publishDataChanges(org.orgId);
    expect(
      body<TTimeline>(await org.c.get(`/api/agent-guard/timeline/${inv.agents[0]?.id ?? ""}`))
        .activityAvailable,
    ).toBe(true);
    await gw.db.db.update(connectors).set({ mode: "demo" }).where(eq(connectors.id, org.connectorId));
    await gw.publishDataChanges(org.orgId);
  });

  it("enforces plan, role, session; 404 for unknown or foreign agents", async () => {
    const starter = await gw.createActor({ plan: "starter" });
    for (const path of [
      "/api/agent-guard/inventory",
      "/api/agent-guard/risk-matrix",
      "/api/agent-guard/timeline/agt_x",
    ]) {
      const res = await client(gw, starter.cookie).get(path);
      expect(res.status, path).toBe(402);
      expect(code(res)).toBe("plan_upgrade_required");
    }
    const member = await gw.createUser(org.orgId, "member");
    expect(
      (await client(gw, await gw.createSession(org.orgId, member.id)).get("/api/agent-guard/inventory"))
        .status,
    ).toBe(403);
    expect(
      (await gw.request("GET", "/api/agent-guard/inventory", { key: org.key, ip: freshIp() })).status,
    ).toBe(403);
    expect((await gw.request("GET", "/api/agent-guard/risk-matrix", { ip: freshIp() })).status).toBe(401);
    expect((await org.c.get("/api/agent-guard/timeline/agt_unknown")).status).toBe(404);
    const id = body<TInventory>(await org.c.get("/api/agent-guard/inventory")).agents[0]?.id ?? "";
    const other = await gw.createActor({ plan: "team" });
    expect((await client(gw, other.cookie).get(`/api/agent-guard/timeline/${id}`)).status).toBe(404);
    expect(body<TInventory>(await client(gw, other.cookie).get("/api/agent-guard/inventory"))).toMatchObject({
      agents: [],
      metrics: { total: 0, unvettedBroad: 0 },
    });
  });
});
