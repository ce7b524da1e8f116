import { describe, expect, it } from "vitest";
import { findings } from "@posture/db";
import { useTestGateway } from "../../testing";
import { seedFinding } from "./seed-finding";

// On the wire: a tenant-configuration finding carries the contract's `benchmark` (and what was
// read, expected and the fix); other findings omit both. Rows written as a scan leaves them.
const gw = useTestGateway();

type TRow = {
  id: string;
  category: string;
  benchmark?: { name: string; version: string; id: string };
  tenantCheck?: { settings: Record<string, unknown>; expected: string; fix: string };
};

describe("tenant-configuration findings over HTTP", () => {
  it("carry benchmark and tenantCheck in the list and the detail; others omit them; the category filters", async () => {
    const a = await gw.createActor({ plan: "business" });
    const file = await seedFinding(gw.db.db, a.orgId);
    const benchmark = { name: "CIS Microsoft 365 Foundations", version: "4.0.0", id: "5.2.2.3" };
    const [tenant] = await gw.db.db
      .insert(findings)
      .values({
        orgId: a.orgId,
        connectorId: file.connectorId,
        connectorType: "google_workspace",
        fingerprint: "fp-tenant",
        ruleId: "m365_legacy_auth_blocked",
        category: "tenant_configuration",
        severity: "HIGH",
        severityRank: 3,
        title: "Not met: Legacy authentication is blocked (CIS Microsoft 365 Foundations 5.2.2.3)",
        resourceId: "m365_legacy_auth_blocked",
        resourceName: "Legacy authentication is blocked",
        resourceType: "tenant_setting",
        details: {
          benchmark,
          settings: { "conditionalAccess.legacyAuthBlocked": false },
          expected: "a conditional access policy blocks legacy authentication",
          fix: "Entra admin center > Conditional Access > block legacy authentication",
        },
      })
      .returning();

    const all = await gw.request("GET", "/api/findings", { key: a.key });
    expect(all.status).toBe(200);
    const rows = (all.body as { findings: TRow[] }).findings;
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(tenant?.id ?? "")).toMatchObject({
      category: "tenant_configuration",
      benchmark,
      tenantCheck: {
        settings: { "conditionalAccess.legacyAuthBlocked": false },
        expected: "a conditional access policy blocks legacy authentication",
        fix: "Entra admin center > Conditional Access > block legacy authentication",
      },
    });
    const other = byId.get(file.id);
    expect(other).toBeDefined();
    expect(other && ("benchmark" in other || "tenantCheck" in other)).toBe(false);

    const filtered = await gw.request("GET", "/api/findings?category=tenant_configuration", { key: a.key });
    expect((filtered.body as { findings: TRow[] }).findings.map((r) => r.id)).toEqual([tenant?.id]);

    const one = await gw.request("GET", `/api/findings/${tenant?.id}`, { key: a.key });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: tenant?.id, benchmark });
    const plain = await gw.request("GET", `/api/findings/${file.id}`, { key: a.key });
    expect(plain.body).not.toHaveProperty("benchmark");

    // The breakdown scores the category under its own cap, and the setting change is a quick win.
    const breakdown = await gw.request("GET", "/api/posture/breakdown", { cookie: a.cookie });
    expect(breakdown.status).toBe(200);
    const b = breakdown.body as {
      categories: Array<{ category: string; deductionPoints: number; findingCount: number }>;
      quickWins: Array<{ action: string; title: string; findingIds: string[]; scoreDelta: number }>;
    };
    // One HIGH: round(15·5/20) = 4 points.
    expect(b.categories).toContainEqual({
      category: "tenant_configuration",
      deductionPoints: 4,
      findingCount: 1,
    });
    expect(b.quickWins).toContainEqual({
      action: "change_setting",
      title: "Entra admin center > Conditional Access > block legacy authentication",
      findingIds: [tenant?.id],
      findingCount: 1,
      scoreDelta: 4,
      steps: 1,
      plan: null,
    });
    expect(b.quickWins[0]).toMatchObject({
      action: "remove_public_link",
      findingIds: [file.id],
      plan: { findingIds: [file.id] },
    });
  });
});
