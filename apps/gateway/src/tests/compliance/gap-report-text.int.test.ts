import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { seedWorkspace } from "@posture/compliance/testing";
import { connectors, findings, tenantCheckResults } from "@posture/db";
import { useTestGateway } from "../../testing";
import { fetchBytes, readPdf, tmpFile } from "./helpers";

// Issue 33, item 8: the gap report is read by a customer. A tenant check is named by its title,
// never its machine id, and a finding's row says which source it is from, so that the same admin
// without MFA in Google Workspace and in Microsoft 365 are two rows that read differently.

const gw = useTestGateway();

// Two checks of the benchmark catalogs (packages/benchmarks), as a scan records their results.
const gws = {
  id: "gws_super_admins_dedicated",
  benchmark: { name: "CIS Google Workspace Foundations", version: "1.3.0", id: "1.1.3" },
};
const m365 = {
  id: "m365_global_admin_count",
  benchmark: { name: "CIS Microsoft 365 Foundations", version: "4.0.0", id: "1.1.3" },
};

/** The report's text in reading order with whitespace collapsed: a cell's wrapped lines join up. */
function flatText(bytes: Buffer): string {
  const raw = execFileSync("pdftotext", ["-raw", tmpFile("gap.pdf", bytes), "-"]).toString();
  return raw.replace(/\s+/g, " ");
}

describe("the gap report's customer text", () => {
  it("names tenant checks by title and gives each finding its source", async () => {
    const a = await gw.createActor({ plan: "business" });
    const { connectorId: google } = await seedWorkspace(gw.db.db, { orgId: a.orgId, users: 5, files: 20 });
    const [ms] = await gw.db.db
      .insert(connectors)
      .values({ orgId: a.orgId, type: "microsoft_365", displayName: "Microsoft 365", mode: "demo" })
      .returning({ id: connectors.id });
    const microsoft = ms?.id ?? "";
    const now = new Date();
    await gw.db.db.insert(tenantCheckResults).values([
      {
        orgId: a.orgId,
        connectorId: google,
        checkId: gws.id,
        benchmark: gws.benchmark,
        status: "fail",
        observed: {},
        scanId: "scn_test",
        checkedAt: now,
      },
      {
        orgId: a.orgId,
        connectorId: microsoft,
        checkId: m365.id,
        benchmark: m365.benchmark,
        status: "fail",
        observed: {},
        scanId: "scn_test",
        checkedAt: now,
      },
    ]);
    const finding = (connectorId: string, connectorType: string, n: number) => ({
      orgId: a.orgId,
      connectorId,
      connectorType,
      fingerprint: `gap-text-${n}`,
      ruleId: "admin_without_mfa",
      category: "identity",
      severity: "CRITICAL" as const,
      severityRank: 4,
      title: "Administrator without MFA",
      resourceId: `it-${n}`,
      resourceName: "it@client.example",
      resourceType: "user",
    });
    await gw.db.db
      .insert(findings)
      .values([finding(google, "google_workspace", 1), finding(microsoft, "microsoft_365", 2)]);

    const res = await fetchBytes(gw, "/api/compliance/gap-report", { key: a.key });
    expect(res.status).toBe(200);
    const { text } = readPdf(res.bytes);
    const flat = flatText(res.bytes);
    if (process.env.PDF_DUMP)
      (await import("node:fs")).writeFileSync(`${process.env.PDF_DUMP}/gap.pdf`, res.bytes);
    // No machine id of a check anywhere a reader looks.
    expect(text.match(/\b(gws|m365)_[a-z0-9_]+/g)).toBeNull();
    // Nor a framework's: the cross-framework themes name them as the summary does.
    expect(text.match(/\b(soc2|iso27001|nist_csf|gdpr|hipaa)\b/g)).toBeNull();
    expect(flat).toMatch(
      /Tenant configuration SOC 2, ISO\/IEC 27001, GDPR, HIPAA Security Rule, NIST CSF failing:/,
    );
    expect(flat).toContain(
      'failing: "Super admin accounts are used only for super admin activities" (CIS Google Workspace Foundations 1.1.3)',
    );
    expect(flat).toContain(
      'failing: "Between two and four Global Administrators are designated" (CIS Microsoft 365 Foundations 1.1.3)',
    );
    // The findings table has a Source column, and the two admins read apart by it.
    expect(text).toMatch(/Severity\s+Finding\s+Source\s+Resource\s+Controls/);
    const rows = text.split("\n").filter((l) => /CRITICAL\s+Administrator without MFA/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows)
      expect(row).toMatch(/Administrator without MFA\s+(Google Workspace|Microsoft 365)\s+it@client/);
    expect(new Set(rows.map((r) => /Google Workspace|Microsoft 365/.exec(r)?.[0]))).toEqual(
      new Set(["Google Workspace", "Microsoft 365"]),
    );
  });
});
