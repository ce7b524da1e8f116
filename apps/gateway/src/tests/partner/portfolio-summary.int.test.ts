import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { findings, queryRows, workspaceShares } from "@posture/db";
import { postureSummaryMismatches } from "@posture/db/testing";
import { type TTestGateway, useTestGateway } from "../../testing";
import { freshIp } from "../helpers";
import { body, client } from "../workspace/harness";

// The portfolio and client report read org_posture_summary, kept by triggers. These tests change
// scans and findings through the API (scan pipeline, sharing approvals, trusted domains, rescans,
// disconnects) and compare every answer with the figures computed from scans and findings directly,
// by the query the portfolio ran before the summary existed.

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TPortfolio = {
  totals: {
    clients: number;
    unscanned: number;
    openCritical: number;
    avgScore: number;
    driftOpen: number;
    driftCritical: number;
    internalExposureOpen: number;
    internalExposureCritical: number;
  };
  clients: Array<{
    orgId: string;
    name: string;
    postureScore: number;
    scanned: boolean;
    openCritical: number;
    drift: { open: number; critical: number };
    internalExposure: { open: number; critical: number };
  }>;
};
type TClient = { orgId: string; owner: TActor; c: ReturnType<typeof client>; connectorId: string };

const gw = useTestGateway();
let msp: TActor;
let rival: TActor;
let alpha: TClient;
let beta: TClient;
let foreign: TClient;

// A demo revision always opens and resolves findings (a user without MFA joins, a scripted one
// turns MFA on at revision 1); 1,000 files give the drift below file findings of both kinds too.
const BETA_FILES = 1_000;

async function managedClient(partner: TActor, name: string, fileCount: number | null): Promise<TClient> {
  const org = await gw.createOrg({ plan: "business", name, managedByOrgId: partner.orgId });
  const owner = await gw.createActor({ orgId: org.id, role: "OWNER" });
  const c = client(gw, owner.cookie);
  if (fileCount === null) return { orgId: org.id, owner, c, connectorId: "" };
  const created = await c.post("/api/connectors", {
    type: "google_workspace",
    displayName: "Demo Drive",
    mode: "demo",
    config: { fileCount },
  });
  expect(created.status).toBe(201);
  const connectorId = body<{ id: string }>(created).id;
  await scan({ orgId: org.id, owner, c, connectorId });
  return { orgId: org.id, owner, c, connectorId };
}

async function scan(t: TClient, request?: Record<string, unknown>) {
  const res = await t.c.post(`/api/connectors/${t.connectorId}/sync`, request);
  expect(res.status).toBe(200);
  const s = body<{ status: string; findingsNew: number; findingsResolved: number }>(res);
  expect(s.status).toBe("COMPLETE");
  return s;
}

/** What the portfolio answered before the summary: per-client subqueries over scans and findings. */
async function expectedPortfolio(partnerOrgId: string): Promise<TPortfolio> {
  const rows = await queryRows<{
    id: string;
    name: string;
    score: number | null;
    critical: number;
    internal_open: number;
    internal_critical: number;
  }>(
    gw.db.db,
    sql`SELECT o.id, o.name,
        (SELECT s.posture_score FROM scans s
          WHERE s.org_id = o.id AND s.status = 'COMPLETE' AND s.posture_score IS NOT NULL
          ORDER BY s.completed_at DESC, s.id DESC LIMIT 1) AS score,
        (SELECT count(*)::int FROM findings f
          WHERE f.org_id = o.id AND f.status = 'OPEN' AND f.severity_rank = 4) AS critical,
        (SELECT count(*)::int FROM findings f
          WHERE f.org_id = o.id AND f.status = 'OPEN' AND f.category = 'internal_exposure') AS internal_open,
        (SELECT count(*)::int FROM findings f
          WHERE f.org_id = o.id AND f.status = 'OPEN' AND f.category = 'internal_exposure'
            AND f.severity_rank = 4) AS internal_critical
      FROM organizations o WHERE o.managed_by_org_id = ${partnerOrgId}
      ORDER BY o.name, o.id`,
  );
  const clients = rows.map((r) => ({
    orgId: r.id,
    name: r.name,
    postureScore: r.score === null ? 0 : Number(r.score),
    scanned: r.score !== null,
    openCritical: Number(r.critical),
    // No standard is assigned in this file: no drift.
    drift: { open: 0, critical: 0 },
    internalExposure: { open: Number(r.internal_open), critical: Number(r.internal_critical) },
  }));
  const scores = clients.filter((c) => c.scanned).map((c) => c.postureScore);
  return {
    totals: {
      clients: clients.length,
      unscanned: clients.length - scores.length,
      openCritical: clients.reduce((n, c) => n + c.openCritical, 0),
      avgScore: scores.length ? Math.round(scores.reduce((a, b) => a + b, 0) / scores.length) : 0,
      driftOpen: 0,
      driftCritical: 0,
      internalExposureOpen: clients.reduce((n, c) => n + c.internalExposure.open, 0),
      internalExposureCritical: clients.reduce((n, c) => n + c.internalExposure.critical, 0),
    },
    clients,
  };
}

/** What the client report answered before the summary: open findings grouped by severity. */
async function expectedClientFigures(orgId: string) {
  const counts = await queryRows<{ severity: string; n: number }>(
    gw.db.db,
    sql`SELECT severity, count(*)::int AS n FROM findings WHERE org_id = ${orgId} AND status = 'OPEN' GROUP BY severity`,
  );
  const findingsBySeverity: Record<string, number> = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
  for (const c of counts) findingsBySeverity[c.severity] = Number(c.n);
  const [latest] = await queryRows<{ score: number }>(
    gw.db.db,
    sql`SELECT posture_score AS score FROM scans WHERE org_id = ${orgId} AND status = 'COMPLETE' AND posture_score IS NOT NULL
      ORDER BY completed_at DESC, id DESC LIMIT 1`,
  );
  return { postureScore: latest ? Number(latest.score) : 0, scanned: !!latest, findings: findingsBySeverity };
}

async function portfolio(partner: TActor): Promise<TPortfolio> {
  const res = await gw.request("GET", "/api/partner/reports/portfolio", { key: partner.key, ip: freshIp() });
  expect(res.status).toBe(200);
  return body<TPortfolio>(res);
}

/** Both partners' portfolios and every client report equal the direct computation. */
async function expectExact() {
  expect(await postureSummaryMismatches(gw.db.db)).toEqual([]);
  for (const p of [msp, rival]) expect(await portfolio(p)).toEqual(await expectedPortfolio(p.orgId));
  for (const [p, t] of [
    [msp, alpha],
    [msp, beta],
    [rival, foreign],
  ] as const) {
    const res = await gw.request("GET", `/api/partner/reports/client/${t.orgId}`, {
      key: p.key,
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(await expectedClientFigures(t.orgId));
  }
}

const openOf = async (p: TActor, t: TClient) => {
  const res = await gw.request("GET", `/api/partner/reports/client/${t.orgId}`, {
    key: p.key,
    ip: freshIp(),
  });
  return Object.values(body<{ findings: Record<string, number> }>(res).findings).reduce((a, b) => a + b, 0);
};
const criticalsOf = async (p: TActor, t: TClient) =>
  (await portfolio(p)).clients.find((c) => c.orgId === t.orgId)?.openCritical;

beforeAll(async () => {
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  rival = await gw.createActor({ plan: "enterprise", isPartner: true });
  alpha = await managedClient(msp, "Alpha Ltd", 500);
  beta = await managedClient(msp, "Beta GmbH", BETA_FILES);
  await managedClient(msp, "Gamma Inc", null);
  foreign = await managedClient(rival, "Rival Client", 400);
});

describe("portfolio from the posture summary", () => {
  it("after scans: equals the per-client computation, each partner seeing only its clients", async () => {
    const mine = await portfolio(msp);
    expect(mine.clients.map((c) => c.name)).toEqual(["Alpha Ltd", "Beta GmbH", "Gamma Inc"]);
    expect(mine.clients[2]).toMatchObject({ postureScore: 0, scanned: false, openCritical: 0 });
    expect(mine.totals.openCritical).toBeGreaterThan(0);
    expect((await portfolio(rival)).clients.map((c) => c.name)).toEqual(["Rival Client"]);
    await expectExact();
  });

  it("after a finding's status changes through the API (sharing approval, withdrawal)", async () => {
    const items = body<{ rows: Array<{ id: string; severity: string }> }>(
      await alpha.c.get("/api/sharing/items?limit=500&type=public"),
    ).rows;
    const item = items.find((i) => i.severity === "CRITICAL") ?? items[0];
    expect(item).toBeDefined();
    const [share] = await gw.db.db
      .select()
      .from(workspaceShares)
      .where(eq(workspaceShares.id, item?.id ?? ""));
    const [finding] = await gw.db.db
      .select()
      .from(findings)
      .where(
        and(
          eq(findings.orgId, alpha.orgId),
          eq(findings.resourceId, share?.fileExternalId ?? ""),
          eq(findings.ruleId, "public_link"),
        ),
      );
    expect(finding?.status).toBe("OPEN");
    const before = await criticalsOf(msp, alpha);
    const openBefore = await openOf(msp, alpha);
    const rivalBefore = await portfolio(rival);

    const approved = await alpha.c.post("/api/sharing/approvals", {
      itemId: item?.id,
      reason: "Public by design",
      expiresInDays: 30,
    });
    expect(approved.status).toBe(201);
    const [accepted] = await gw.db.db
      .select()
      .from(findings)
      .where(eq(findings.id, finding?.id ?? ""));
    expect(accepted?.status).toBe("ACCEPTED");
    expect(await criticalsOf(msp, alpha)).toBe((before ?? 0) - (finding?.severityRank === 4 ? 1 : 0));
    expect(await openOf(msp, alpha)).toBe(openBefore - 1);
    expect(await portfolio(rival)).toEqual(rivalBefore);
    await expectExact();

    const withdrawn = await alpha.c.del(`/api/sharing/approvals/${body<{ id: string }>(approved).id}`);
    expect(withdrawn.status).toBe(200);
    expect(await criticalsOf(msp, alpha)).toBe(before);
    expect(await openOf(msp, alpha)).toBe(openBefore);
    await expectExact();
  });

  it("after a trusted domain re-rates findings' severity through the API", async () => {
    const [domain] = await queryRows<{ d: string }>(
      gw.db.db,
      sql`SELECT p.target_domain AS d FROM workspace_permissions p
        WHERE p.org_id = ${beta.orgId} AND p.sharing_type IN ('external_user', 'external_domain')
        GROUP BY p.target_domain ORDER BY count(*) DESC LIMIT 1`,
    );
    expect(domain).toBeDefined();
    const added = await beta.c.post("/api/sharing/trusted-domains", { domain: domain?.d });
    expect(added.status).toBe(201);
    expect(body<{ rerated: { findings: number } }>(added).rerated.findings).toBeGreaterThan(0);
    await expectExact();
    const removed = await beta.c.del(`/api/sharing/trusted-domains/${body<{ id: string }>(added).id}`);
    expect(removed.status).toBe(200);
    await expectExact();
  });

  it("after a rescan that resolves findings and opens others", async () => {
    const scoreBefore = (await portfolio(msp)).clients.find((c) => c.orgId === beta.orgId)?.postureScore;
    const drift = await scan(beta, { demo: { advance: 1 } });
    expect(drift.findingsResolved).toBeGreaterThan(0);
    expect(drift.findingsNew).toBeGreaterThan(0);
    await expectExact();
    // An unchanged rescan keeps everything.
    const unchanged = await scan(beta);
    expect(unchanged).toMatchObject({ findingsNew: 0, findingsResolved: 0 });
    expect(typeof scoreBefore).toBe("number");
    await expectExact();
  });

  it("after a source is disconnected (its findings removed by cascade)", async () => {
    const res = await gw.request("DELETE", `/api/connectors/${alpha.connectorId}`, {
      cookie: alpha.owner.cookie,
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
    expect(await criticalsOf(msp, alpha)).toBe(0);
    await expectExact();
  });
});
