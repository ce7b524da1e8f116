import { describe, expect, it } from "vitest";
import { seedWorkspace, TYPICAL_FINDINGS } from "@posture/compliance/testing";
import { eq, sql } from "drizzle-orm";
import { findings, partnerSettings, scans } from "@posture/db";
import { useTestGateway } from "../../testing";
import { fetchBytes, readPdf } from "./helpers";
import { tinyPng } from "./png";

const gw = useTestGateway();

const scores = Array.from({ length: 40 }, (_, i) => 50 + Math.round(i / 2));

describe("GET /api/reports/compliance", () => {
  it("is a PDF with score, grade, trend, categories, findings and the framework summary", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    await seedWorkspace(gw.db.db, {
      orgId: a.orgId,
      users: 20,
      files: 500,
      scores,
      findings: TYPICAL_FINDINGS,
      auditEntries: 2,
    });
    const res = await fetchBytes(gw, "/api/reports/compliance?period=60", { cookie: a.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("ratelimit")).toMatch(/"compliance-report";r=4/);
    const { text, pages } = readPdf(res.bytes);
    for (const s of [
      "Security posture report",
      "Period: last 60 days",
      "Score trend",
      "Breakdown by category",
      "Public exposure",
      "Top findings",
      "Administrator without MFA",
      "Compliance frameworks",
      "NIST CSF",
      "70",
      `Page ${pages} of ${pages}`,
    ]) {
      expect(text).toContain(s);
    }
    expect(text).not.toContain("Prepared by");
  });

  it("lists as improvements only the fixes that raise the score", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    await seedWorkspace(gw.db.db, { orgId: a.orgId, users: 5, files: 20, findings: TYPICAL_FINDINGS });
    const [worth, worthless] = await gw.db.db
      .select({ id: findings.id, title: findings.title })
      .from(findings)
      .where(eq(findings.orgId, a.orgId))
      .orderBy(findings.id)
      .limit(2);
    if (!worth || !worthless) throw new Error("seeded findings missing");
    // A category at its cap: fixing one of its findings changes nothing (scoreDelta 0).
    const topImprovements = [
      { findingId: worth.id, scoreDelta: 3 },
      { findingId: worthless.id, scoreDelta: 0 },
    ];
    await gw.db.db
      .update(scans)
      .set({
        breakdown: sql`coalesce(${scans.breakdown}, '{}'::jsonb) || ${JSON.stringify({ topImprovements })}::jsonb`,
      })
      .where(eq(scans.orgId, a.orgId));
    const res = await fetchBytes(gw, "/api/reports/compliance?period=30", { cookie: a.cookie });
    expect(res.status).toBe(200);
    const { text } = readPdf(res.bytes);
    expect(text).toContain(`${worth.title}: +3 points when fixed.`);
    expect(text).not.toContain("+0 points");
  });

  it("allows 5 per hour per organization, then 429 with Retry-After; other organizations are unaffected", async () => {
    const a = await gw.createActor({ plan: "business" });
    for (let i = 0; i < 5; i++)
      expect((await fetchBytes(gw, "/api/reports/compliance", { cookie: a.cookie })).status).toBe(200);
    const limited = await fetchBytes(gw, "/api/reports/compliance", { cookie: a.cookie });
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ error: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(3000);
    // A second session of the same organization shares the counter.
    const again = await gw.createSession(a.orgId, a.user.id);
    expect((await fetchBytes(gw, "/api/reports/compliance", { cookie: again })).status).toBe(429);
    const b = await gw.createActor({ plan: "business" });
    expect((await fetchBytes(gw, "/api/reports/compliance", { cookie: b.cookie })).status).toBe(200);
  });

  it("refuses an API key (403), a member (403), a team plan (402) and a bad period (400)", async () => {
    const a = await gw.createActor({ plan: "business" });
    expect((await fetchBytes(gw, "/api/reports/compliance", { key: a.key })).json).toMatchObject({
      error: "session_required",
    });
    const member = await gw.createUser(a.orgId, "member");
    const memberCookie = await gw.createSession(a.orgId, member.id);
    const m = await fetchBytes(gw, "/api/reports/compliance", { cookie: memberCookie });
    expect(m.status).toBe(403);
    expect(m.json).toMatchObject({ error: "forbidden" });
    const team = await gw.createActor({ plan: "team" });
    expect((await fetchBytes(gw, "/api/reports/compliance", { cookie: team.cookie })).status).toBe(402);
    for (const p of ["45", "abc", "-30"]) {
      const bad = await fetchBytes(gw, `/api/reports/compliance?period=${p}`, { cookie: a.cookie });
      expect(bad.status).toBe(400);
    }
  });

  it("is white-labelled for an organization managed by an enterprise partner", async () => {
    const partner = await gw.createOrg({ plan: "enterprise", isPartner: true, name: "Northwind MSP" });
    await gw.db.db.insert(partnerSettings).values({
      orgId: partner.id,
      name: "Northwind Security",
      accentColor: "#0E7C66",
      logo: tinyPng(16, [255, 160, 0]),
      logoMime: "image/png",
    });
    const client = await gw.createOrg({ plan: "business", managedByOrgId: partner.id, name: "Client Co" });
    const a = await gw.createActor({ orgId: client.id });
    await seedWorkspace(gw.db.db, { orgId: client.id, users: 5, files: 50, scores: [70, 72] });
    const res = await fetchBytes(gw, "/api/reports/compliance", { cookie: a.cookie });
    const { text } = readPdf(res.bytes);
    expect(text).toContain("Prepared by Northwind Security");
    expect(text).toContain("NORTHWIND SECURITY");

    // A partner without whiteLabel (business) does not brand its clients' reports.
    const plain = await gw.createOrg({ plan: "business", isPartner: true, name: "Small MSP" });
    await gw.db.db.insert(partnerSettings).values({ orgId: plain.id, name: "Small MSP Brand" });
    const c2 = await gw.createOrg({ plan: "business", managedByOrgId: plain.id });
    const a2 = await gw.createActor({ orgId: c2.id });
    expect(
      readPdf((await fetchBytes(gw, "/api/reports/compliance", { cookie: a2.cookie })).bytes).text,
    ).not.toContain("Small MSP Brand");
  });
});
