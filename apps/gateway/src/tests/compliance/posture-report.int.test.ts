import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { seedWorkspace, TYPICAL_FINDINGS } from "@posture/compliance/testing";
import { inArray } from "drizzle-orm";
import { findings, partnerSettings } from "@posture/db";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";
import { fetchBytes, readPdf } from "./helpers";
import { tinyPng } from "./png";

const gw = useTestGateway();

type TBreakdown = {
  score: number;
  topImprovements: Array<{ findingId: string; scoreDelta: number }>;
  quickWins: Array<{ title: string; scoreDelta: number }>;
};

const points = (n: number) => `+${n} ${n === 1 ? "point" : "points"}`;

/** The report's text with its layout's runs of spaces and line breaks as single spaces. */
const flat = (text: string) => text.replace(/\s+/g, " ");

async function titlesOf(ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await gw.db.db
    .select({ id: findings.id, title: findings.title })
    .from(findings)
    .where(inArray(findings.id, ids));
  return new Map(rows.map((r) => [r.id, r.title]));
}

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

  it("lists the breakdown's own improvements: its quick wins and single fixes, with their points", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    await seedWorkspace(gw.db.db, { orgId: a.orgId, users: 5, files: 20, findings: TYPICAL_FINDINGS });
    const breakdown = (await gw.request("GET", "/api/posture/breakdown", { cookie: a.cookie, ip: freshIp() }))
      .body as TBreakdown;
    const res = await fetchBytes(gw, "/api/reports/compliance?period=30", { cookie: a.cookie });
    expect(res.status).toBe(200);
    const text = flat(readPdf(res.bytes).text);
    expect(text).toContain(`Summary ${breakdown.score} `);
    expect(breakdown.quickWins.length).toBeGreaterThanOrEqual(1);
    for (const w of breakdown.quickWins) expect(text).toContain(`${w.title}: ${points(w.scoreDelta)}.`);
    const titles = await titlesOf(breakdown.topImprovements.map((i) => i.findingId));
    for (const i of breakdown.topImprovements)
      expect(text).toContain(`${titles.get(i.findingId)}: ${points(i.scoreDelta)} when fixed.`);
    expect(text).not.toContain("+0 points");
    expect(text).not.toContain("No fix raises the score");
  });

  it("offers the group fix when no single fix moves the score, and prints no API path (issue 33)", async () => {
    const a = await gw.createActor({ plan: "business", role: "ADMIN" });
    // Forty public links: the category is so deep that one fewer changes nothing (each single
    // fix is worth 0), while removing them all is worth points.
    const links = Array.from({ length: 40 }, (_, i) => ({
      ruleId: "public_link",
      category: "public_exposure",
      severity: "HIGH" as const,
      title: `Public link on report-${i}.xlsx`,
      resourceName: `report-${i}.xlsx`,
    }));
    await seedWorkspace(gw.db.db, { orgId: a.orgId, users: 5, files: 20, findings: links });
    const breakdown = (await gw.request("GET", "/api/posture/breakdown", { cookie: a.cookie, ip: freshIp() }))
      .body as TBreakdown;
    expect(breakdown.topImprovements).toEqual([]);
    expect(breakdown.quickWins.map((w) => [w.title, w.scoreDelta])).toEqual([["Remove 40 public links", 10]]);
    const res = await fetchBytes(gw, "/api/reports/compliance?period=30", { cookie: a.cookie });
    if (process.env.PDF_DUMP) writeFileSync(`${process.env.PDF_DUMP}/posture.pdf`, res.bytes);
    const text = flat(readPdf(res.bytes).text);
    // The summary's stats: score, grade, open critical, open high; the breakdown's score, now.
    expect(breakdown.score).toBe(90);
    expect(text).toContain("Summary 90 A 0 40 Posture score (0-100) Grade Open critical Open high");
    expect(text).toContain("Remove 40 public links: +10 points.");
    expect(text).not.toContain("No single fix");
    expect(text).not.toContain("No fix raises the score");
    expect(text).not.toMatch(/\/api\/|GET \//);
    expect(text).toContain("The compliance gap report details every gap and the findings behind it.");
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
