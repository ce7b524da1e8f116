import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  organizations,
  orgPostureSummary,
  preventionRules,
  queryRows,
  securityPolicies,
  trustedDomains,
} from "@posture/db";
import { getPortfolio, refreshClient } from "@posture/partner";
import { waitFor } from "@posture/webhooks/testing";
import { type TTestGateway, useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// Drift at the scale (500 clients), exact: the partner-wide recomputation after a standard
// is assigned to a group, every client's refresh after a scan of each, and the portfolio's counts.
// How fast is `pnpm bench partner-portfolio`'s to say (docs/benchmarks.md), not a test's.

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
const CLIENTS = 500;

const gw = useTestGateway();
let msp: TActor;
let clientIds: string[] = [];
let standardId = "";
let groupId = "";

const call = (method: string, path: string, body?: unknown) =>
  gw.request(method, path, { cookie: msp.cookie, ip: freshIp(), ...(body === undefined ? {} : { body }) });

async function openDriftCount(): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    gw.db.db,
    sql`SELECT count(*)::int AS n FROM partner_drift WHERE partner_org_id = ${msp.orgId} AND resolved_at IS NULL`,
  );
  return Number(row?.n ?? 0);
}

beforeAll(async () => {
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  const orgs = await gw.db.db
    .insert(organizations)
    .values(
      Array.from({ length: CLIENTS }, (_, i) => ({
        name: `Client ${String(i).padStart(3, "0")}`,
        plan: "business" as const,
        managedByOrgId: msp.orgId,
      })),
    )
    .returning({ id: organizations.id });
  clientIds = orgs.map((o) => o.id);
  // Every client holds the baseline's policy; every third has switched it off; every fifth trusts
  // an outside domain; scores spread over 40..99.
  await gw.db.db.insert(securityPolicies).values(
    clientIds.map((orgId, i) => ({
      orgId,
      name: "No public links",
      match: { categories: ["public_exposure"], minSeverity: "CRITICAL" as const },
      enabled: i % 3 !== 0,
    })),
  );
  await gw.db.db
    .insert(preventionRules)
    .values(clientIds.map((orgId) => ({ orgId, name: "Alert", match: { categories: ["public_exposure"] } })));
  await gw.db.db
    .insert(trustedDomains)
    .values(clientIds.filter((_, i) => i % 5 === 0).map((orgId) => ({ orgId, domain: "outsider.io" })));
  await gw.db.db
    .insert(orgPostureSummary)
    .values(
      clientIds.map((orgId, i) => ({ orgId, postureScore: 40 + (i % 60), scoreCompletedAt: new Date() })),
    )
    .onConflictDoUpdate({
      target: orgPostureSummary.orgId,
      set: { postureScore: sql`excluded.posture_score` },
    });

  const std = await call("POST", "/api/partner/standards", {
    name: "Scale baseline",
    policies: [
      { name: "No public links", match: { categories: ["public_exposure"], minSeverity: "CRITICAL" } },
    ],
    preventionRules: [{ name: "Alert on public links", match: { categories: ["public_exposure"] } }],
    trustedDomains: ["partner-approved.com"],
    minScore: 70,
  });
  expect(std.status).toBe(201);
  standardId = (std.body as { id: string }).id;
  const group = await call("POST", "/api/partner/groups", { name: "Everyone", clientOrgIds: clientIds });
  expect(group.status).toBe(201);
  groupId = (group.body as { id: string }).id;
}, 120_000);

// What the fixtures above make drift: a switched-off policy (i % 3 == 0), an outside domain
// (i % 5 == 0), a score below 70 (40 + i % 60 < 70).
function expectedDrift(): number {
  let n = 0;
  for (let i = 0; i < CLIENTS; i++) {
    if (i % 3 === 0) n++;
    if (i % 5 === 0) n++;
    if (40 + (i % 60) < 70) n++;
  }
  return n;
}

describe("drift at 500 clients", () => {
  it("assigning the standard to a group of 500 computes every client's drift", async () => {
    // Assigned through the group: the recomputation is queued (in process here).
    const assigned = await call("PUT", `/api/partner/standards/${standardId}/assignments`, {
      clientOrgIds: [],
      groupIds: [groupId],
    });
    expect(assigned.status).toBe(200);
    await waitFor(async () => (await openDriftCount()) === expectedDrift(), 60_000);
    // Recomputing with nothing changed opens nothing new.
    await gw.gateway.deps.jobs.runAndWait(
      "partner.drift.refresh",
      { partnerOrgId: msp.orgId },
      { jobId: `scale-${Math.random()}`, timeoutMs: 60_000 },
    );
    expect(await openDriftCount()).toBe(expectedDrift());
  }, 90_000);

  it("a refresh after a scan of each client leaves each client's drift exact", async () => {
    // Half the clients switch the policy back on: their drift resolves on their next refresh.
    await gw.db.db
      .update(securityPolicies)
      .set({ enabled: true })
      .where(eq(securityPolicies.name, "No public links"));
    const deps = { db: gw.db.db, jobs: gw.gateway.deps.jobs, runtime: { publicUrl: "http://localhost" } };
    // The scheduler runs several refresh jobs at once; four here.
    const queue = [...clientIds];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let id = queue.shift(); id; id = queue.shift()) await refreshClient(deps, id);
      }),
    );
    let n = 0;
    for (let i = 0; i < CLIENTS; i++) n += (i % 5 === 0 ? 1 : 0) + (40 + (i % 60) < 70 ? 1 : 0);
    expect(await openDriftCount()).toBe(n);
  }, 90_000);

  it("the portfolio counts each client's open drift", async () => {
    const last = await getPortfolio(gw.db.db, { partnerOrgId: msp.orgId });
    expect(last.clients).toHaveLength(CLIENTS);
    expect(last.totals.driftOpen).toBe(await openDriftCount());
    // Per client, against the store (an open row's client: resolved rows do not count).
    const counted = await queryRows<{ client_org_id: string; n: number }>(
      gw.db.db,
      sql`SELECT client_org_id, count(*)::int AS n FROM partner_drift
        WHERE partner_org_id = ${msp.orgId} AND resolved_at IS NULL GROUP BY client_org_id`,
    );
    expect(counted.length).toBeGreaterThan(0);
    const byClient = new Map(last.clients.map((c) => [c.orgId, c.drift.open]));
    for (const r of counted) expect(byClient.get(r.client_org_id)).toBe(r.n);
  });
});
