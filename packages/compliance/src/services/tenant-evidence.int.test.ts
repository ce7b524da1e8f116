import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TTenantCheck } from "@posture/benchmarks";
import { TEST_CONTROLS, testCheck } from "@posture/benchmarks/testing";
import { organizations, tenantCheckResults } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { randomBytes } from "node:crypto";
import { setAuditKey } from "@posture/platform";
import { seedWorkspace } from "../testing";
import { getDashboard } from "./reports";

// tenant_check_results, as scans leave them, are the evidence of the controls each check maps to:
// the dashboard counts and names those controls. An injected catalog (the benchmark catalogs are
// filled elsewhere).
const LOGOFF = "164.312(a)(2)(iii)";
const check = (id: string, severity: TTenantCheck["severity"], hipaa: string): TTenantCheck =>
  testCheck({
    id,
    benchmark: { name: "CIS Google Workspace Foundations", version: "1.3.0", id: `3.1.${id.length}` },
    title: id,
    severity,
    settings: [id],
    expected: "on",
    test: () => true,
    fix: "turn it on",
    controls: { ...TEST_CONTROLS, hipaa: [hipaa] },
  });
const CATALOG = [check("gws_session_timeout", "MEDIUM", LOGOFF), check("gws_2sv", "HIGH", "164.312(d)")];

let db: TestDb;
let orgId: string;
let connectorId: string;

beforeAll(async () => {
  // The dashboard verifies the audit chain, keyed as every process is at start.
  setAuditKey(randomBytes(32));
  db = await createTestDb();
  const [org] = await db.db
    .insert(organizations)
    .values({ name: "Evidence Co", plan: "business" })
    .returning();
  orgId = org?.id ?? "";
  ({ connectorId } = await seedWorkspace(db.db, { orgId, users: 20, files: 50, scores: [90] }));
});
afterAll(async () => {
  setAuditKey(null);
  await db?.drop();
});

async function results(rows: Array<[string, "pass" | "fail" | "unavailable"]>, checkedAt = new Date()) {
  await db.db.delete(tenantCheckResults);
  await db.db.insert(tenantCheckResults).values(
    rows.map(([checkId, status]) => ({
      orgId,
      connectorId,
      checkId,
      benchmark: CATALOG.find((c) => c.id === checkId)?.benchmark ?? { name: "", version: "", id: "" },
      status,
      observed: { [checkId]: status === "pass" },
      scanId: "scn_test",
      checkedAt,
    })),
  );
}

const hipaaOf = async () =>
  (await getDashboard(db.db, { orgId, tenantChecks: CATALOG })).frameworks.find((f) => f.id === "hipaa");

describe("compliance dashboard with tenant checks", () => {
  it("counts and names the controls tenant checks evidence, with their status", async () => {
    await results([
      ["gws_session_timeout", "pass"],
      ["gws_2sv", "fail"],
    ]);
    const hipaa = await hipaaOf();
    expect(hipaa?.evidencedByTenantChecks).toBe(2);
    expect(hipaa?.tenantControls).toEqual([
      {
        id: LOGOFF,
        title: "Automatic logoff",
        status: "SATISFIED",
        tenantChecks: [{ id: "gws_session_timeout", benchmark: CATALOG[0]?.benchmark, status: "pass" }],
      },
      {
        id: "164.312(d)",
        title: expect.any(String),
        status: "GAP",
        tenantChecks: [{ id: "gws_2sv", benchmark: CATALOG[1]?.benchmark, status: "fail" }],
      },
    ]);
    const all = (await getDashboard(db.db, { orgId, tenantChecks: CATALOG })).frameworks;
    expect(all.every((f) => f.evidencedByTenantChecks >= 1)).toBe(true);
  });

  it("ignores results older than the period, and keeps today's behaviour without a catalog", async () => {
    await results([["gws_session_timeout", "pass"]], new Date(Date.now() - 60 * 86_400_000));
    const hipaa = await hipaaOf();
    expect(hipaa?.evidencedByTenantChecks).toBe(0);
    expect(hipaa?.tenantControls).toEqual([]);
    await results([["gws_session_timeout", "pass"]]);
    const withoutCatalog = (await getDashboard(db.db, { orgId, tenantChecks: [] })).frameworks;
    expect(withoutCatalog.every((f) => f.evidencedByTenantChecks === 0)).toBe(true);
  });
});
