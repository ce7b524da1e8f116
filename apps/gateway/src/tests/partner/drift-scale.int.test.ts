import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  organizations,
  orgPostureSummary,
  partnerDrift,
  preventionRules,
  queryRows,
  securityPolicies,
  trustedDomains,
} from "@posture/db";
import { getPortfolio, refreshClient } from "@posture/partner";
import { waitFor } from "@posture/webhooks/testing";
import { type TTestGateway, useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// Speed of drift at the scale (500 clients): every client's refresh after a scan of each
// (the bench's "≤ 30 s"), the partner-wide recomputation after a standard changes, and the
// portfolio with drift counts (one indexed query; the p99 ≤ 50 ms).

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
  it("assigning the standard to a group of 500 computes their drift well within 30 s", async () => {
    const started = performance.now();
    // Assigned through the group: the recomputation is queued (in process here) and measured
    // until every client's drift is in.
    const assigned = await call("PUT", `/api/partner/standards/${standardId}/assignments`, {
      clientOrgIds: [],
      groupIds: [groupId],
    });
    expect(assigned.status).toBe(200);
    await waitFor(async () => (await openDriftCount()) === expectedDrift(), 30_000);
    const ms = performance.now() - started;
    expect(ms).toBeLessThan(30_000);
    console.info(`drift: ${CLIENTS} clients assigned and computed in ${Math.round(ms)} ms`);
    // Recomputing with nothing changed opens nothing new.
    await gw.gateway.deps.jobs.runAndWait(
      "partner.drift.refresh",
      { partnerOrgId: msp.orgId },
      { jobId: `scale-${Math.random()}`, timeoutMs: 60_000 },
    );
    expect(await openDriftCount()).toBe(expectedDrift());
  }, 90_000);

  it("a refresh after a scan of each client: all 500 within 30 s, as the scan job queues them", async () => {
    // Half the clients switch the policy back on: their drift resolves on their next refresh.
    await gw.db.db
      .update(securityPolicies)
      .set({ enabled: true })
      .where(eq(securityPolicies.name, "No public links"));
    const deps = { db: gw.db.db, jobs: gw.gateway.deps.jobs, runtime: { publicUrl: "http://localhost" } };
    const started = performance.now();
    // The scheduler runs several refresh jobs at once; four here.
    const queue = [...clientIds];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let id = queue.shift(); id; id = queue.shift()) await refreshClient(deps, id);
      }),
    );
    const ms = performance.now() - started;
    expect(ms).toBeLessThan(30_000);
    let n = 0;
    for (let i = 0; i < CLIENTS; i++) n += (i % 5 === 0 ? 1 : 0) + (40 + (i % 60) < 70 ? 1 : 0);
    expect(await openDriftCount()).toBe(n);
    console.info(`drift: ${CLIENTS} single-client refreshes in ${Math.round(ms)} ms`);
  }, 90_000);

  it("the portfolio with drift counts stays one fast query (p99 ≤ 50 ms)", async () => {
    const timings: number[] = [];
    let last: Awaited<ReturnType<typeof getPortfolio>> | undefined;
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      last = await getPortfolio(gw.db.db, { partnerOrgId: msp.orgId });
      timings.push(performance.now() - t0);
    }
    timings.sort((a, b) => a - b);
    const p99 = timings[Math.floor(timings.length * 0.99) - 1] ?? Infinity;
    console.info(
      `portfolio (500 clients, drift counts): p50 ${timings[30]?.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
    );
    expect(p99).toBeLessThan(50);
    expect(last?.clients).toHaveLength(CLIENTS);
    expect(last?.totals.driftOpen).toBe(await openDriftCount());
    const [row] = await gw.db.db
      .select()
      .from(partnerDrift)
      .where(eq(partnerDrift.partnerOrgId, msp.orgId))
      .limit(1);
    const client = last?.clients.find((c) => c.orgId === row?.clientOrgId);
    expect(client?.drift.open).toBeGreaterThan(0);
  });
});
