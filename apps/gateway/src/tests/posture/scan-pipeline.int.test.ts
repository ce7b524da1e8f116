import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { findings, scans, SEVERITY_RANK, trustedDomains, type TSeverity } from "@posture/db";
import { sweepDueScans } from "@posture/scans";
import { useTestGateway } from "../../testing";

type TScan = {
  scanId: string;
  status: string;
  resources: number;
  findingsNew: number;
  findingsResolved: number;
  postureScore: number;
};
type TFindingRow = {
  id: string;
  severity: TSeverity;
  title: string;
  status: string;
  detectedAt: string;
  category: string;
  ruleId: string;
};

const gw = useTestGateway();

async function connectDemo(cookie: string, fileCount = 400, displayName = "Demo Drive") {
  const res = await gw.request("POST", "/api/connectors", {
    cookie,
    body: { type: "google_workspace", displayName, mode: "demo", config: { fileCount } },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; status: string; healthStatus: string; mode: string };
}

async function sync(cookie: string, id: string, body?: Record<string, unknown>) {
  return gw.request("POST", `/api/connectors/${id}/sync`, { cookie, ...(body ? { body } : {}) });
}

describe("connect → scan → findings → posture", () => {
  it("scans a demo source and reports new, then nothing new, then new and resolved after drift", async () => {
    const a = await gw.createActor({ plan: "business", role: "OWNER" });
    // A revision always opens and resolves something (a new user without MFA joins; a scripted
    // one turns MFA on at revision 1); 2,000 files also give it file findings of both kinds.
    const connector = await connectDemo(a.cookie, 2000);
    expect(connector).toMatchObject({ status: "CONNECTED", healthStatus: "healthy", mode: "demo" });

    const first = await sync(a.cookie, connector.id);
    expect(first.status).toBe(200);
    const s1 = first.body as TScan;
    expect(s1.status).toBe("COMPLETE");
    expect(s1.resources).toBeGreaterThan(400);
    expect(s1.findingsNew).toBeGreaterThan(0);
    expect(s1.findingsResolved).toBe(0);
    expect(s1.postureScore).toBeGreaterThanOrEqual(0);
    expect(s1.postureScore).toBeLessThanOrEqual(100);

    const unchanged = (await sync(a.cookie, connector.id)).body as TScan;
    expect(unchanged).toMatchObject({
      status: "COMPLETE",
      findingsNew: 0,
      findingsResolved: 0,
      postureScore: s1.postureScore,
    });

    const openBefore = await gw.db.db
      .select({ id: findings.id })
      .from(findings)
      .where(eq(findings.connectorId, connector.id));
    // The source drifts: the sandbox moves a day on, removing some exposures and adding others.
    const drift = (await sync(a.cookie, connector.id, { demo: { advance: 1 } })).body as TScan;
    expect(drift.findingsNew).toBeGreaterThan(0);
    expect(drift.findingsResolved).toBeGreaterThan(0);

    const rows = await gw.db.db.select().from(findings).where(eq(findings.connectorId, connector.id));
    const open = rows.filter((r) => r.status === "OPEN");
    const resolved = rows.filter((r) => r.status === "RESOLVED");
    expect(resolved).toHaveLength(drift.findingsResolved);
    expect(rows.length).toBe(openBefore.length + drift.findingsNew);
    expect(new Set(rows.map((r) => r.fingerprint)).size).toBe(rows.length);

    const listed = await gw.request("GET", `/api/findings?limit=500`, { key: a.key });
    expect(listed.status).toBe(200);
    const list = (listed.body as { findings: TFindingRow[] }).findings;
    expect(list.length).toBe(Math.min(500, open.length));
    expect(list.every((f) => f.status === "OPEN")).toBe(true);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1] as TFindingRow;
      const cur = list[i] as TFindingRow;
      const order = SEVERITY_RANK[prev.severity] - SEVERITY_RANK[cur.severity];
      expect(order > 0 || (order === 0 && prev.detectedAt >= cur.detectedAt)).toBe(true);
    }
    expect(listed.body).toMatchObject({ total: open.length, limit: 500, offset: 0 });

    // The contract's offset envelope: total counts every match, nextOffset is null on the last page.
    const page = async (offset: number) =>
      (await gw.request("GET", `/api/findings?limit=7&offset=${offset}`, { key: a.key })).body as {
        findings: TFindingRow[];
        total: number;
        nextOffset: number | null;
      };
    const firstPage = await page(0);
    expect(firstPage).toMatchObject({ total: open.length, limit: 7, offset: 0, nextOffset: 7 });
    const last = await page(Math.floor((open.length - 1) / 7) * 7);
    expect(last.nextOffset).toBeNull();
    expect(last.findings.length).toBe(open.length - Math.floor((open.length - 1) / 7) * 7);
    // Every filter's total is the number of matching rows (open ones come from the posture summary).
    const totalOf = async (query: string) =>
      ((await gw.request("GET", `/api/findings?limit=1${query}`, { key: a.key })).body as { total: number })
        .total;
    for (const severity of ["CRITICAL", "HIGH", "MEDIUM", "LOW"] as const) {
      expect(await totalOf(`&severity=${severity}`), severity).toBe(
        open.filter((r) => r.severity === severity).length,
      );
    }
    expect(await totalOf("&status=RESOLVED")).toBe(resolved.length);
    expect(await totalOf("&status=all")).toBe(rows.length);

    const history = await gw.request("GET", "/api/posture/history", { cookie: a.cookie });
    expect((history.body as { history: Array<{ score: number }> }).history.map((h) => h.score)).toEqual([
      s1.postureScore,
      unchanged.postureScore,
      drift.postureScore,
    ]);
    const breakdown = await gw.request("GET", "/api/posture/breakdown", { cookie: a.cookie });
    expect(breakdown.status).toBe(200);
    const b = breakdown.body as {
      score: number;
      grade: string;
      categories: Array<{ category: string }>;
      topImprovements: unknown[];
      quickWins: unknown[];
    };
    expect(b.score).toBe(drift.postureScore);
    expect(b.categories.map((c) => c.category)).toContain("public_exposure");
    expect(Array.isArray(b.quickWins)).toBe(true);

    const list2 = await gw.request("GET", "/api/connectors", { key: a.key });
    const c = (
      list2.body as { connectors: Array<{ id: string; findingCount: number; resourceCount: number }> }
    ).connectors[0];
    expect(c).toMatchObject({ id: connector.id, findingCount: open.length });
  });

  it("lowers the severity of shares to a trusted domain on the next scan", async () => {
    const a = await gw.createActor({ plan: "business" });
    const connector = await connectDemo(a.cookie, 600);
    await sync(a.cookie, connector.id);
    const external = await gw.db.db.select().from(findings).where(eq(findings.connectorId, connector.id));
    // A file shared with exactly one outside domain: trusting that domain must lower its severity.
    const share = external.find((f) => {
      const domains = f.details.externalDomains;
      return (
        f.category === "external_sharing" &&
        Array.isArray(domains) &&
        domains.length === 1 &&
        f.severity !== "LOW"
      );
    });
    expect(share).toBeDefined();
    const domain = String((share?.details.externalDomains as string[])[0]);
    await gw.db.db.insert(trustedDomains).values({ orgId: a.orgId, domain, note: "partner" });
    await sync(a.cookie, connector.id);
    const [after] = await gw.db.db
      .select()
      .from(findings)
      .where(eq(findings.id, share?.id ?? ""));
    expect(SEVERITY_RANK[after?.severity ?? "LOW"]).toBe(SEVERITY_RANK[share?.severity ?? "LOW"] - 1);
  });

  it("enforces the plan's source and daily scan ceilings", async () => {
    const a = await gw.createActor({ plan: "free" });
    const connector = await connectDemo(a.cookie, 50);
    const second = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "microsoft_365", displayName: "Second", mode: "demo" },
    });
    expect(second.status).toBe(402);
    expect(second.body).toMatchObject({ error: "plan_limit_reached" });

    expect((await sync(a.cookie, connector.id)).status).toBe(200);
    expect((await sync(a.cookie, connector.id)).status).toBe(200);
    const third = await sync(a.cookie, connector.id);
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ error: "rate_limited" });
    const retryAfter = Number(third.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);

    const usage = await gw.request("GET", "/api/usage", { cookie: a.cookie });
    expect(usage.body).toMatchObject({ sources: { used: 1, max: 1 }, scans: { usedToday: 2, maxPerDay: 2 } });
  });

  it("counts scans started, not connectors: deleting and recreating a source earns no extra scans", async () => {
    const a = await gw.createActor({ plan: "free" });
    const remove = async (id: string) =>
      expect((await gw.request("DELETE", `/api/connectors/${id}`, { cookie: a.cookie })).status).toBe(200);
    const c1 = await connectDemo(a.cookie, 20, "One");
    expect((await sync(a.cookie, c1.id)).status).toBe(200);
    await remove(c1.id);
    const c2 = await connectDemo(a.cookie, 20, "Two");
    expect((await sync(a.cookie, c2.id)).status).toBe(200);
    await remove(c2.id);
    const c3 = await connectDemo(a.cookie, 20, "Three");
    const refused = await sync(a.cookie, c3.id);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: "rate_limited" });

    // The daily sweep scans never-scanned sources, but at most one per source the plan allows per
    // day: a recreated source is no back door either.
    const scheduledToday = async () =>
      (await gw.db.db.select().from(scans).where(eq(scans.orgId, a.orgId))).filter(
        (s) => s.trigger === "scheduled",
      ).length;
    const { jobs, runtime, log } = gw.gateway.deps;
    const deps = { db: gw.db.db, jobs, runtime, log };
    await sweepDueScans(deps, new Date());
    expect(await scheduledToday()).toBe(1);
    await remove(c3.id);
    await connectDemo(a.cookie, 20, "Four");
    await sweepDueScans(deps, new Date());
    expect(await scheduledToday()).toBe(1);
  });

  it("disconnecting removes the connector and its findings; other tenants get 404", async () => {
    const a = await gw.createActor({ plan: "business" });
    const other = await gw.createActor({ plan: "business" });
    const connector = await connectDemo(a.cookie, 50);
    await sync(a.cookie, connector.id);

    expect((await sync(other.cookie, connector.id)).status).toBe(404);
    const foreignDelete = await gw.request("DELETE", `/api/connectors/${connector.id}`, {
      cookie: other.cookie,
    });
    expect(foreignDelete.status).toBe(404);
    expect(foreignDelete.body).toMatchObject({ error: "not_found" });

    const del = await gw.request("DELETE", `/api/connectors/${connector.id}`, { cookie: a.cookie });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ disconnected: true });
    expect(await gw.db.db.select().from(findings).where(eq(findings.connectorId, connector.id))).toHaveLength(
      0,
    );
    const audit = await gw.request("GET", "/api/audit?limit=100", { key: a.key });
    const actions = (audit.body as { entries: Array<{ action: string }> }).entries.map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(["CONNECTOR_CONNECTED", "SCAN_TRIGGERED", "CONNECTOR_DISCONNECTED"]),
    );
  });

  it("rejects bad connector input with 400 and the contract body", async () => {
    const a = await gw.createActor({ plan: "business" });
    const res = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "dropbox", displayName: "", mode: "demo" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_input" });
    expect((res.body as { details: Array<{ path: string }> }).details.map((d) => d.path)).toEqual(
      expect.arrayContaining(["type", "displayName"]),
    );
    const real = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "google_workspace", displayName: "x", mode: "real" },
    });
    expect(real.status).toBe(400);
  });
});
