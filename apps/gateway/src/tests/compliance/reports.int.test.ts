import { beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace, TYPICAL_FINDINGS } from "@posture/compliance/testing";
import { complianceRuns } from "@posture/db";
import { eq, sql } from "drizzle-orm";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";
import { fetchBytes, readPdf } from "./helpers";

const gw = useTestGateway();
let acme: Awaited<ReturnType<TTestGateway["createActor"]>>;
beforeAll(async () => {
  acme = await gw.createActor({ plan: "business" });
  await seedWorkspace(gw.db.db, {
    orgId: acme.orgId,
    users: 40,
    files: 3000,
    scores: [55, 60, 64],
    findings: TYPICAL_FINDINGS,
    apps: 4,
    incidents: [{ status: "CLOSED", withPostMortem: true }],
    activity: 50,
    auditEntries: 3,
  });
});

type TReport = {
  runId: string;
  report: {
    framework: string;
    satisfied: number;
    partial: number;
    gap: number;
    controls: Array<{ id: string; status: string; reason: string; findingIds: string[] }>;
  };
};

describe("POST /api/compliance/reports", () => {
  it("evaluates SOC 2 by default, with real control ids, reasons and the findings behind them", async () => {
    const res = await gw.request("POST", "/api/compliance/reports", {
      key: acme.key,
      body: {},
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
    const body = res.body as TReport;
    expect(body.report.framework).toBe("soc2");
    const { satisfied, partial, gap, controls } = body.report;
    expect(satisfied + partial + gap).toBe(controls.length);
    expect(controls.map((c) => c.id)).toEqual(expect.arrayContaining(["CC6.1", "CC6.6", "CC7.2", "C1.1"]));
    const cc61 = controls.find((c) => c.id === "CC6.1");
    // A CRITICAL admin-without-MFA finding fails logical access.
    expect(cc61?.status).toBe("GAP");
    expect(cc61?.reason).toMatch(/MFA/);
    expect(cc61?.findingIds.length).toBeGreaterThan(0);
    // The audit trail exists and its chain verifies.
    expect(controls.find((c) => c.id === "CC7.2")?.reason ?? "").not.toMatch(/broken/);
    // Stored as a run, with the reasons.
    const [run] = await gw.db.db.select().from(complianceRuns).where(eq(complianceRuns.id, body.runId));
    expect(run).toMatchObject({ orgId: acme.orgId, framework: "soc2", satisfied, partial, gap });
  });

  it.each(["iso27001", "gdpr", "hipaa", "nist_csf"])(
    "evaluates %s with its own catalogue",
    async (framework) => {
      const res = await gw.request("POST", "/api/compliance/reports", {
        key: acme.key,
        body: { framework, period: 90 },
        ip: freshIp(),
      });
      expect(res.status).toBe(200);
      const { report } = res.body as TReport;
      expect(report.framework).toBe(framework);
      expect(report.satisfied + report.partial + report.gap).toBe(report.controls.length);
      const expected = { iso27001: "A.8.5", gdpr: "Art. 32", hipaa: "164.312(d)", nist_csf: "PR.AA-03" }[
        framework
      ];
      expect(report.controls.map((c) => c.id)).toContain(expected);
    },
  );

  it("rejects an unknown framework or a bad period with 400", async () => {
    for (const body of [{ framework: "pci" }, { period: 0 }, { period: 1.5 }, { period: 366 }]) {
      const res = await gw.request("POST", "/api/compliance/reports", { key: acme.key, body, ip: freshIp() });
      expect(res.status).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
  });

  it("is open to a starter session but not to a free one (402)", async () => {
    const starter = await gw.createActor({ plan: "starter" });
    expect(
      (
        await gw.request("POST", "/api/compliance/reports", {
          cookie: starter.cookie,
          body: {},
          ip: freshIp(),
        })
      ).status,
    ).toBe(200);
    const free = await gw.createActor({ plan: "free" });
    const res = await gw.request("POST", "/api/compliance/reports", {
      cookie: free.cookie,
      body: {},
      ip: freshIp(),
    });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ error: "plan_upgrade_required", upgrade: { requiredPlan: "starter" } });
  });

  it("an organization without data gets gaps, not another organization's evidence", async () => {
    const other = await gw.createActor({ plan: "business" });
    const res = await gw.request("POST", "/api/compliance/reports", {
      key: other.key,
      body: {},
      ip: freshIp(),
    });
    const { report } = res.body as TReport;
    expect(report.satisfied).toBe(0);
    expect(report.controls.every((c) => c.findingIds.length === 0)).toBe(true);
  });
});

describe("GET /api/compliance/reports/{runId}", () => {
  it("returns a stored run and what changed since the previous run of that framework", async () => {
    const post = (body: object) =>
      gw.request("POST", "/api/compliance/reports", { key: acme.key, body, ip: freshIp() });
    const first = (await post({ framework: "gdpr" })).body as TReport;
    // Fix the critical admin-without-MFA finding: Art. 29 (processing under authority: admins) improves.
    await gw.db.db.execute(
      sql`UPDATE findings SET status = 'RESOLVED', resolved_at = now() WHERE org_id = ${acme.orgId} AND rule_id = 'admin_without_mfa'`,
    );
    const second = (await post({ framework: "gdpr" })).body as TReport;
    const res = await gw.request("GET", `/api/compliance/reports/${second.runId}`, {
      key: acme.key,
      ip: freshIp(),
    });
    expect(res.status).toBe(200);
    const body = res.body as TReport & {
      previousRunId: string;
      changes: Array<{ id: string; from: string; to: string }>;
    };
    expect(body.previousRunId).toBe(first.runId);
    expect(body.report.controls).toEqual(second.report.controls);
    const before = new Map(first.report.controls.map((c) => [c.id, c.status]));
    const changed = second.report.controls.filter((c) => before.get(c.id) !== c.status).map((c) => c.id);
    expect(changed).toContain("Art. 29");
    expect(body.changes.map((c) => c.id)).toEqual(changed);
    expect(body.changes.find((c) => c.id === "Art. 29")).toEqual({
      id: "Art. 29",
      from: "GAP",
      to: "PARTIAL",
    });
    await gw.db.db.execute(
      sql`UPDATE findings SET status = 'OPEN', resolved_at = null WHERE org_id = ${acme.orgId} AND rule_id = 'admin_without_mfa'`,
    );
  });

  it("another organization's run is a 404", async () => {
    const mine = (
      await gw.request("POST", "/api/compliance/reports", { key: acme.key, body: {}, ip: freshIp() })
    ).body as TReport;
    const other = await gw.createActor({ plan: "business" });
    const res = await gw.request("GET", `/api/compliance/reports/${mine.runId}`, {
      key: other.key,
      ip: freshIp(),
    });
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe("not_found");
  });
});

describe("GET /api/compliance/dashboard", () => {
  it("gives every framework's satisfiedPct and the themes failing in two or more", async () => {
    const res = await gw.request("GET", "/api/compliance/dashboard", { key: acme.key, ip: freshIp() });
    expect(res.status).toBe(200);
    const body = res.body as {
      frameworks: Array<{ id: string; satisfiedPct: number; partial: number; gap: number }>;
      crossGaps: Array<{ theme: string; frameworks: string[] }>;
    };
    expect(body.frameworks.map((f) => f.id)).toEqual(["soc2", "iso27001", "gdpr", "hipaa", "nist_csf"]);
    for (const f of body.frameworks) expect(f.satisfiedPct).toBeGreaterThanOrEqual(0);
    const mfa = body.crossGaps.find((g) => g.theme === "MFA");
    expect(mfa?.frameworks.length).toBeGreaterThanOrEqual(2);
    for (const g of body.crossGaps) expect(g.frameworks.length).toBeGreaterThanOrEqual(2);
  });

  it("needs business (402 for team)", async () => {
    const team = await gw.createActor({ plan: "team" });
    const res = await gw.request("GET", "/api/compliance/dashboard", { cookie: team.cookie, ip: freshIp() });
    expect(res.status).toBe(402);
  });
});

describe("GET /api/compliance/gap-report", () => {
  it("downloads a PDF with every framework, the findings behind the gaps and what to fix first", async () => {
    const res = await fetchBytes(gw, "/api/compliance/gap-report", { key: acme.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="gap-report-\d{4}-\d{2}-\d{2}\.pdf"/,
    );
    const { text, pages } = readPdf(res.bytes);
    expect(pages).toBeGreaterThan(2);
    for (const s of [
      "Compliance gap report",
      "What to fix first",
      "Cross-framework themes",
      "SOC 2",
      "ISO/IEC 27001",
      "GDPR",
      "HIPAA",
      "NIST CSF",
      "CC6.1",
      "Administrator without MFA",
      `Page ${pages} of ${pages}`,
    ]) {
      expect(text).toContain(s);
    }
  });

  it("keeps the guards of the JSON API: 401, 402, 400", async () => {
    expect((await fetchBytes(gw, "/api/compliance/gap-report")).status).toBe(401);
    const team = await gw.createActor({ plan: "team" });
    const r402 = await fetchBytes(gw, "/api/compliance/gap-report", { cookie: team.cookie });
    expect(r402.status).toBe(402);
    expect(r402.json).toMatchObject({ error: "plan_upgrade_required" });
    const r400 = await fetchBytes(gw, "/api/compliance/gap-report?period=abc", { key: acme.key });
    expect(r400.status).toBe(400);
    expect(r400.json).toMatchObject({ error: "invalid_input" });
  });
});
