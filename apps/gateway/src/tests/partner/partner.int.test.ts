import { beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace } from "@posture/compliance/testing";
import { connectors, events, findings, partnerReports, scans } from "@posture/db";
import { buildScheduledReport, lastCompletePeriod } from "@posture/partner";
import { and, eq } from "drizzle-orm";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";
import { fetchBytes, readPdf } from "../compliance/helpers";

const gw = useTestGateway();
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
let msp: TActor;
let rival: TActor;
const clients: Array<{ id: string; name: string }> = [];
let foreignClient = "";

beforeAll(async () => {
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  rival = await gw.createActor({ plan: "enterprise", isPartner: true });
  const specs = [
    { name: "Alpha Ltd", scores: [80, 82, 85], critical: 0 },
    { name: "Beta GmbH", scores: [70, 64, 60], critical: 2 },
    { name: "Gamma Inc", scores: [], critical: 0 },
  ];
  for (const s of specs) {
    const org = await gw.createOrg({ plan: "business", name: s.name, managedByOrgId: msp.orgId });
    clients.push({ id: org.id, name: s.name });
    if (s.scores.length) {
      await seedWorkspace(gw.db.db, {
        orgId: org.id,
        scores: s.scores,
        findings: Array.from({ length: s.critical }, () => ({
          ruleId: "admin_without_mfa",
          category: "identity",
          severity: "CRITICAL" as const,
        })),
      });
    }
  }
  foreignClient = (
    await gw.createOrg({ plan: "business", name: "Rival Client", managedByOrgId: rival.orgId })
  ).id;
  await seedWorkspace(gw.db.db, {
    orgId: foreignClient,
    scores: [10],
    findings: [{ ruleId: "public_link", category: "public_exposure", severity: "CRITICAL" }],
  });
});

const get = (a: TActor, path: string) => gw.request("GET", path, { key: a.key, ip: freshIp() });
const patch = (cookie: string, body: unknown) =>
  gw.request("PATCH", "/api/partner/settings", { cookie, body, ip: freshIp() });

describe("GET /api/partner/reports/portfolio", () => {
  it("lists only the partner's own clients with latest score and open criticals", async () => {
    const res = await get(msp, "/api/partner/reports/portfolio");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      totals: {
        clients: 3,
        unscanned: 1,
        openCritical: 2,
        avgScore: 73,
        driftOpen: 0,
        driftCritical: 0,
        internalExposureOpen: 0,
        internalExposureCritical: 0,
      },
      clients: [
        {
          orgId: clients[0]?.id,
          name: "Alpha Ltd",
          postureScore: 85,
          scanned: true,
          openCritical: 0,
          drift: { open: 0, critical: 0 },
          internalExposure: { open: 0, critical: 0 },
        },
        {
          orgId: clients[1]?.id,
          name: "Beta GmbH",
          postureScore: 60,
          scanned: true,
          openCritical: 2,
          drift: { open: 0, critical: 0 },
          internalExposure: { open: 0, critical: 0 },
        },
        // Never scanned: the spec's integer, 0, flagged; out of the average.
        {
          orgId: clients[2]?.id,
          name: "Gamma Inc",
          postureScore: 0,
          scanned: false,
          openCritical: 0,
          drift: { open: 0, critical: 0 },
          internalExposure: { open: 0, critical: 0 },
        },
      ],
    });
  });

  it("403 partner_required for a non-partner, 402 for a partner below enterprise", async () => {
    const plain = await gw.createActor({ plan: "enterprise" });
    expect(errorCode(await get(plain, "/api/partner/reports/portfolio"))).toBe("partner_required");
    const small = await gw.createActor({ plan: "business", isPartner: true });
    const res = await get(small, "/api/partner/reports/portfolio");
    expect(res.status).toBe(402);
  });
});

describe("GET /api/partner/reports/client/{orgId}", () => {
  it("gives one point per day, severities and sources", async () => {
    const beta = clients[1]?.id ?? "";
    const res = await get(msp, `/api/partner/reports/client/${beta}`);
    expect(res.status).toBe(200);
    const body = res.body as {
      postureScore: number;
      findings: Record<string, number>;
      trend: Array<{ score: number; at: string }>;
    };
    expect(body.postureScore).toBe(60);
    expect(body.findings).toEqual({ CRITICAL: 2, HIGH: 0, MEDIUM: 0, LOW: 0 });
    expect(body.trend.map((t) => t.score)).toEqual([70, 64, 60]);
    for (const t of body.trend) expect(t.at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new Set(body.trend.map((t) => t.at)).size).toBe(3);
  });

  it("gives a never-scanned client the spec's integer score 0, flagged scanned: false", async () => {
    const gamma = clients[2]?.id ?? "";
    const res = await get(msp, `/api/partner/reports/client/${gamma}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ orgId: gamma, postureScore: 0, scanned: false, trend: [] });
    const beta = await get(msp, `/api/partner/reports/client/${clients[1]?.id ?? ""}`);
    expect(beta.body).toMatchObject({ postureScore: 60, scanned: true });
  });

  it("404 for an organization it does not manage, for its own id and for nonsense", async () => {
    for (const id of [foreignClient, msp.orgId, "org_nope"]) {
      const res = await get(msp, `/api/partner/reports/client/${id}`);
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBe("not_found");
    }
  });
});

describe("PATCH /api/partner/settings", () => {
  it("updates name, schedule, notification and accent colour", async () => {
    const res = await patch(msp.cookie, {
      name: "Northwind Security",
      reportSchedule: "WEEKLY",
      notifyUnhealthy: true,
      accentColor: "#0e7c66",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: "Northwind Security",
      reportSchedule: "WEEKLY",
      notifyUnhealthy: true,
      logoUrl: null,
      accentColor: "#0E7C66",
    });
    const again = await patch(msp.cookie, { notifyUnhealthy: true });
    expect(again.body).toMatchObject({ name: "Northwind Security", reportSchedule: "WEEKLY" });
  });

  it("rejects bad input with 400 naming the field", async () => {
    for (const [body, path] of [
      [{ accentColor: "green" }, "accentColor"],
      [{ reportSchedule: "DAILY" }, "reportSchedule"],
      [{ logoUrl: "http://example.com/logo.png" }, "logoUrl"],
      [{ name: "" }, "name"],
    ] as const) {
      const res = await patch(msp.cookie, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: "invalid_input",
        details: [expect.objectContaining({ path })],
      });
    }
  });

  it("refuses a logo URL that resolves to a private address (SSRF guard)", async () => {
    const res = await patch(msp.cookie, { logoUrl: "https://127.0.0.1/logo.png" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: "invalid_input",
      details: [expect.objectContaining({ path: "logoUrl" })],
    });
  });

  it("needs ADMIN (403 for a member)", async () => {
    const member = await gw.createUser(msp.orgId, "member");
    const res = await patch(await gw.createSession(msp.orgId, member.id), { name: "x" });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe("forbidden");
  });
});

describe("scheduled portfolio reports", () => {
  it("are built once per period, listed, downloadable as PDF and announced", async () => {
    await patch(msp.cookie, { reportSchedule: "WEEKLY" });
    const run = () =>
      gw.gateway.deps.jobs.runAndWait(
        "partner.reports.sweep",
        {},
        { jobId: `sweep-${Math.random()}`, timeoutMs: 20_000 },
      );
    await run();
    await run();
    const list = await get(msp, "/api/partner/reports");
    expect(list.status).toBe(200);
    const body = list.body as {
      rows: Array<{ id: string; schedule: string; clientCount: number }>;
      total: number;
    };
    expect(body.total).toBe(1);
    expect(body.rows[0]).toMatchObject({ schedule: "WEEKLY", clientCount: 3 });
    const id = body.rows[0]?.id ?? "";
    const pdf = await fetchBytes(gw, `/api/partner/reports/${id}`, { key: msp.key });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    const { text } = readPdf(pdf.bytes);
    for (const s of [
      "Weekly portfolio report",
      "Northwind Security",
      "Alpha Ltd",
      "Beta GmbH",
      "Needs attention",
      "Lowest posture scores",
    ])
      expect(text).toContain(s);
    expect(text).not.toContain("Rival Client");
    const announced = await gw.db.db
      .select()
      .from(events)
      .where(and(eq(events.orgId, msp.orgId), eq(events.type, "partner.report.ready")));
    expect(announced).toHaveLength(1);
    expect(JSON.parse(announced[0]?.data ?? "{}")).toMatchObject({
      reportId: id,
      schedule: "WEEKLY",
      clients: 3,
    });
    // Another partner cannot read it.
    expect((await fetchBytes(gw, `/api/partner/reports/${id}`, { key: rival.key })).status).toBe(404);
    expect(
      (await gw.db.db.select().from(partnerReports).where(eq(partnerReports.partnerOrgId, rival.orgId)))
        .length,
    ).toBe(0);
  });
});

describe("client.unhealthy", () => {
  it("fires when a client's source turns unhealthy and when its score drops by 10 points", async () => {
    await patch(msp.cookie, { notifyUnhealthy: true });
    const sweep = () =>
      gw.gateway.deps.jobs.runAndWait(
        "partner.health.sweep",
        {},
        { jobId: `health-${Math.random()}`, timeoutMs: 20_000 },
      );
    await sweep(); // first look: records the state only
    const alpha = clients[0]?.id ?? "";
    const [con] = await gw.db.db.select().from(connectors).where(eq(connectors.orgId, alpha));
    await gw.db.db
      .update(connectors)
      .set({ healthStatus: "auth_failed" })
      .where(eq(connectors.id, con?.id ?? ""));
    await gw.db.db.insert(scans).values({
      orgId: alpha,
      connectorId: con?.id,
      connectorName: "x",
      trigger: "scheduled",
      status: "COMPLETE",
      postureScore: 70,
      completedAt: new Date(),
    });
    await sweep();
    await sweep(); // nothing new: no repeat
    const sent = await gw.db.db
      .select()
      .from(events)
      .where(and(eq(events.orgId, msp.orgId), eq(events.type, "client.unhealthy")));
    const data = sent.map(
      (e) => JSON.parse(e.data) as { orgId: string; reason: string; score: number; previousScore: number },
    );
    expect(data.map((d) => d.reason).sort()).toEqual(["score_drop", "source_unhealthy"]);
    expect(data.every((d) => d.orgId === alpha)).toBe(true);
    expect(data.find((d) => d.reason === "score_drop")).toMatchObject({ score: 70, previousScore: 85 });
  });
});

describe("a period report's figures", () => {
  it("are all as at the period end, with the lowest scores listed", async () => {
    const p = await gw.createActor({ plan: "enterprise", isPartner: true });
    const now = new Date();
    const period = lastCompletePeriod("WEEKLY", now);
    const H = 3_600_000;
    const before = (h: number) => new Date(period.end.getTime() - h * H);
    const after = (h: number) => new Date(period.end.getTime() + h * H);
    const db = gw.db.db;
    const client = async (name: string) => {
      const org = await gw.createOrg({ plan: "business", name, managedByOrgId: p.orgId });
      const [con] = await db
        .insert(connectors)
        .values({
          orgId: org.id,
          type: "google_workspace",
          displayName: `${name} Drive`,
          mode: "demo",
          createdAt: new Date(period.start.getTime() - 30 * 24 * H),
        })
        .returning();
      if (!con) throw new Error("connector insert failed");
      const scan = (score: number | null, at: Date, status: "COMPLETE" | "FAILED" = "COMPLETE") =>
        db.insert(scans).values({
          orgId: org.id,
          connectorId: con.id,
          connectorName: con.displayName,
          trigger: "scheduled",
          status,
          postureScore: score,
          completedAt: at,
        });
      let n = 0;
      const finding = (severity: "CRITICAL" | "HIGH", detectedAt: Date, resolvedAt: Date | null) =>
        db.insert(findings).values({
          orgId: org.id,
          connectorId: con.id,
          connectorType: "google_workspace",
          fingerprint: `fp-${name}-${n++}`,
          ruleId: "admin_without_mfa",
          category: "identity",
          severity,
          severityRank: severity === "CRITICAL" ? 4 : 3,
          title: `${severity} ${n}`,
          resourceId: `r-${n}`,
          resourceName: `r-${n}`,
          resourceType: "user",
          status: resolvedAt ? "RESOLVED" : "OPEN",
          detectedAt,
          resolvedAt,
        });
      return { org, scan, finding };
    };
    // Delta: 90 before the period, 40 at its end, 95 since; one critical open at the end (another
    // resolved before it, a third found after it); a high open at the end, resolved since; its
    // last scan before the end failed, its source healthy now.
    const delta = await client("Delta Corp");
    await delta.scan(90, new Date(period.start.getTime() - 24 * H));
    await delta.scan(40, before(30));
    await delta.scan(null, before(2), "FAILED");
    await delta.scan(95, after(1));
    await delta.finding("CRITICAL", before(48), null);
    await delta.finding("CRITICAL", before(48), before(24));
    await delta.finding("CRITICAL", after(1), null);
    await delta.finding("HIGH", before(72), after(1));
    const echo = await client("Echo SA");
    await echo.scan(70, before(48));
    // Foxtrot's first scan came after the period.
    const foxtrot = await client("Foxtrot BV");
    await foxtrot.scan(88, after(2));

    const { jobs, runtime, log } = gw.gateway.deps;
    const id = await buildScheduledReport(
      { db, jobs, runtime, log },
      { partnerOrgId: p.orgId, schedule: "WEEKLY", now },
    );
    expect(id).toBeTruthy();
    const pdf = await fetchBytes(gw, `/api/partner/reports/${id ?? ""}`, { key: p.key });
    expect(pdf.status).toBe(200);
    const { text } = readPdf(pdf.bytes);
    const asOf = new Date(period.end.getTime() - 1).toISOString().slice(0, 10);
    expect(text).toContain(`Every figure as at the end of ${asOf} UTC`);

    // The lowest scores, lowest first, at the period end (not Delta's 95 of today).
    const lowest = text.slice(text.indexOf("Lowest posture scores"), text.indexOf("Needs attention"));
    expect(lowest).toMatch(/Delta Corp\s+40\b/);
    expect(lowest).toMatch(/Echo SA\s+70\b/);
    expect(lowest.indexOf("Delta Corp")).toBeLessThan(lowest.indexOf("Echo SA"));
    expect(lowest).not.toContain("95");
    expect(lowest).toContain("Not scanned by the end of");
    expect(lowest).toContain("Foxtrot BV");

    // Needs attention: the criticals, the failed source and the fall, all at the period end.
    const why = text.slice(text.indexOf("Needs attention"), text.indexOf("All clients"));
    expect(why).toContain("1 open critical");
    expect(why).toContain("1 unhealthy source");
    expect(why).toContain("score fell 50 points");
    expect(why).not.toContain("Echo SA");

    // Every client, with the high findings open at the end; Foxtrot not scanned by then.
    const all = text.slice(text.indexOf("All clients"));
    expect(all).toMatch(/Delta Corp\s+40\s+-50\s+1\s+1\b/);
    expect(all).toMatch(/Echo SA\s+70\s+-\s+0\s+0\b/);
    expect(all).toMatch(/Foxtrot BV\s+not scanned\s+-\s+0\s+0\b/);
    // Clients, the average of those scanned at the end ((40 + 70) / 2), not scanned, open
    // critical at the end, open internal exposure at the end, needing attention.
    expect(text).toMatch(
      /\b3\s+55\s+1\s+1\s+0\s+1\s*\n\s*Clients\s+Average score\s+Not scanned\s+Open critical\s+Open inside\s+Need\s+attention/,
    );
  });
});
