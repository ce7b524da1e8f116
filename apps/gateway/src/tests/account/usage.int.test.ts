import { connectors, organizations, scans } from "@posture/db";
import { PLANS } from "@posture/platform";
import { setOrganizationPlan } from "@posture/account";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { requester } from "./helpers";

const gw = useTestGateway();
let req: ReturnType<typeof requester>;
beforeAll(async () => {
  req = requester(gw);
});

async function addConnector(orgId: string) {
  const [c] = await gw.db.db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Workspace", mode: "demo" })
    .returning();
  if (!c) throw new Error("connector insert failed");
  return c;
}

function addScan(orgId: string, trigger: "manual" | "scheduled", createdAt: Date) {
  return gw.db.db.insert(scans).values({ orgId, connectorName: "Workspace", trigger, createdAt });
}

describe("GET /api/usage", () => {
  it("reports the plan's limits and features with zero usage", async () => {
    const actor = await gw.createActor({ plan: "business", role: "member" });
    const res = await req("GET", "/api/usage", { key: actor.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      plan: "business",
      inGrace: false,
      graceEndsAt: null,
      sources: { used: 0, max: 50 },
      scans: { usedToday: 0, maxPerDay: 100 },
      features: {
        apiAccess: true,
        flowGuard: true,
        agentGuard: true,
        ueba: true,
        ticketing: true,
        complianceExport: true,
        whiteLabel: false,
      },
    });
  });

  it("counts the organization's connectors and today's manual scans only", async () => {
    const actor = await gw.createActor({ plan: "enterprise" });
    const other = await gw.createActor({ plan: "enterprise" });
    await addConnector(actor.orgId);
    await addConnector(actor.orgId);
    await addConnector(other.orgId);
    const now = new Date();
    const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    await addScan(actor.orgId, "manual", now);
    await addScan(actor.orgId, "manual", now);
    await addScan(actor.orgId, "manual", new Date(midnight.getTime() + 1)); // today, just after midnight
    await addScan(actor.orgId, "manual", new Date(midnight.getTime() - 1)); // yesterday
    await addScan(actor.orgId, "scheduled", now);
    await addScan(other.orgId, "manual", now);

    const res = await req("GET", "/api/usage", { key: actor.key });
    expect(res.body).toMatchObject({
      plan: "enterprise",
      sources: { used: 2, max: null },
      scans: { usedToday: 3, maxPerDay: null },
      features: { whiteLabel: true },
    });
  });

  it("works with a session too, and gives a team-plan API key 402", async () => {
    const team = await gw.createActor({ plan: "team" });
    expect(await req("GET", "/api/usage", { cookie: team.cookie })).toMatchObject({
      status: 200,
      body: { plan: "team", sources: { max: 10 }, features: { agentGuard: true, apiAccess: false } },
    });
    expect(await req("GET", "/api/usage", { key: team.key })).toMatchObject({
      status: 402,
      body: { error: "plan_upgrade_required", upgrade: { feature: "apiAccess" } },
    });
    expect((await req("GET", "/api/usage")).status).toBe(401);
  });

  it("keeps the old plan's entitlements during a downgrade's grace period", async () => {
    const actor = await gw.createActor({ plan: "business" });
    const changed = await setOrganizationPlan(gw.db.db, { orgId: actor.orgId, plan: "starter" });
    expect(changed).toMatchObject({ id: actor.orgId, plan: "starter", inGrace: true });
    const graceEndsAt = new Date(changed.graceEndsAt ?? 0).getTime();
    expect(graceEndsAt).toBeGreaterThan(Date.now() + 13.9 * 86_400_000);
    expect(graceEndsAt).toBeLessThanOrEqual(Date.now() + 14 * 86_400_000);

    // The API key keeps working: apiAccess is a business entitlement, still in force.
    const res = await req("GET", "/api/usage", { key: actor.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      plan: "starter",
      inGrace: true,
      graceEndsAt: changed.graceEndsAt,
      sources: { max: PLANS.business.sourcesMax },
      scans: { maxPerDay: PLANS.business.scansPerDay },
      features: PLANS.business.features,
    });
    expect((await req("GET", "/api/keys", { key: actor.key })).status).toBe(200);

    // Once grace is over the lower plan applies, and a starter key gets 402.
    await gw.db.db
      .update(organizations)
      .set({ graceEndsAt: new Date(Date.now() - 1000) })
      .where(eq(organizations.id, actor.orgId));
    // Out-of-band SQL: the gateways' credential caches learn of it when it is published.
    await gw.publishCredentialChanges(actor.orgId);
    expect((await req("GET", "/api/usage", { key: actor.key })).status).toBe(402);
    expect(await req("GET", "/api/usage", { cookie: actor.cookie })).toMatchObject({
      status: 200,
      body: {
        plan: "starter",
        inGrace: false,
        graceEndsAt: null,
        sources: { max: 3 },
        features: { apiAccess: false },
      },
    });
  });

  it("ends grace on an upgrade and does not restart it on a second downgrade", async () => {
    const actor = await gw.createActor({ plan: "enterprise" });
    const first = await setOrganizationPlan(gw.db.db, { orgId: actor.orgId, plan: "business" });
    const second = await setOrganizationPlan(gw.db.db, { orgId: actor.orgId, plan: "team" });
    expect(second).toMatchObject({ plan: "team", inGrace: true, graceEndsAt: first.graceEndsAt });
    expect(await setOrganizationPlan(gw.db.db, { orgId: actor.orgId, plan: "enterprise" })).toMatchObject({
      plan: "enterprise",
      inGrace: false,
      graceEndsAt: null,
    });
  });
});
