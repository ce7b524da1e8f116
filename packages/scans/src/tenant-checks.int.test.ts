import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TTenantCheck } from "@posture/benchmarks";
import { testCheck } from "@posture/benchmarks/testing";
import {
  createDemoAdapter,
  type TCoverageGap,
  type TTenantSetting,
  type TSuiteType,
} from "@posture/connectors";
import { connectors, findings, organizations, scans, tenantCheckResults } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { computeOrgPosture, getFindingView, listFindings } from "@posture/posture";
import { runScanJob, type TScanDeps } from "./index";
import { scanOnlyDeps } from "./testing/scan-deps";

// The scan path of tenant settings against the real database: settings → checks → findings and
// tenant_check_results, with a catalog of its own (the benchmark catalogs are filled elsewhere).

const check = (
  id: string,
  key: string,
  expected: boolean,
  severity: TTenantCheck["severity"],
): TTenantCheck =>
  testCheck({
    id,
    benchmark: { name: "CIS Google Workspace Foundations", version: "1.3.0", id: `1.1.${id.length}` },
    title: `${key} is ${String(expected)}`,
    severity,
    settings: [key],
    expected: String(expected),
    test: (v) => v[key] === expected,
    fix: `Set ${key} to ${String(expected)}`,
  });
const CHECKS = [
  check("gws_2sv", "2sv.enforced", true, "HIGH"),
  check("gws_less_secure", "lsa.allowed", false, "MEDIUM"),
  check("gws_dlp", "dlp.enabled", true, "LOW"),
];

let db: TestDb;
let orgId: string;
let connectorId: string;
let settings: () => Promise<TTenantSetting[]>;
let gaps: TCoverageGap[] = [];

function deps(): TScanDeps {
  return {
    ...scanOnlyDeps(db.db, {
      adapterFor: (c) => ({
        ...createDemoAdapter({ seed: c.id, type: c.type as TSuiteType, fileCount: 20 }),
        tenantSettings: () => settings(),
        coverageGaps: () => gaps,
      }),
    }),
    tenantChecks: () => CHECKS,
  };
}

async function scan() {
  const [row] = await db.db
    .insert(scans)
    .values({ orgId, connectorId, connectorName: "Drive", trigger: "manual" })
    .returning();
  if (!row) throw new Error("no scan");
  return runScanJob(deps(), row.id, 1);
}

const tenantFindings = () =>
  db.db
    .select()
    .from(findings)
    .where(and(eq(findings.connectorId, connectorId), eq(findings.category, "tenant_configuration")));
const results = async () =>
  new Map(
    (
      await db.db.select().from(tenantCheckResults).where(eq(tenantCheckResults.connectorId, connectorId))
    ).map((r) => [r.checkId, r]),
  );
const read = (values: Record<string, boolean | string>, unavailable: Record<string, string> = {}) => {
  settings = async () => [
    ...Object.entries(values).map(([key, value]) => ({ key, value, source: "GET /fake" })),
    ...Object.entries(unavailable).map(([key, why]) => ({ key, unavailable: why })),
  ];
};

beforeAll(async () => {
  db = await createTestDb();
  const [org] = await db.db.insert(organizations).values({ name: "Tenant Co", plan: "business" }).returning();
  orgId = org?.id ?? "";
  const [c] = await db.db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Drive", mode: "demo" })
    .returning();
  connectorId = c?.id ?? "";
});
afterAll(async () => {
  await db?.drop();
});

describe("tenant checks in a scan", () => {
  it("opens a finding per failing check, stores every result, and resolves it once the setting is fixed", async () => {
    read({ "2sv.enforced": false, "lsa.allowed": false, "dlp.enabled": false });
    const first = await scan();
    expect(first.status).toBe("COMPLETE");
    expect(first.coverage).toEqual([]);

    const open = await tenantFindings();
    expect(open.map((f) => [f.ruleId, f.status, f.severity, f.resourceType]).sort()).toEqual([
      ["gws_2sv", "OPEN", "HIGH", "tenant_setting"],
      ["gws_dlp", "OPEN", "LOW", "tenant_setting"],
    ]);
    const twoStep = open.find((f) => f.ruleId === "gws_2sv");
    expect(twoStep?.details).toEqual({
      benchmark: CHECKS[0]?.benchmark,
      settings: { "2sv.enforced": false },
      expected: "true",
      fix: "Set 2sv.enforced to true",
    });
    const stored = await results();
    expect([...stored.values()].map((r) => [r.checkId, r.status]).sort()).toEqual([
      ["gws_2sv", "fail"],
      ["gws_dlp", "fail"],
      ["gws_less_secure", "pass"],
    ]);
    expect(stored.get("gws_2sv")?.benchmark).toEqual(CHECKS[0]?.benchmark);
    expect(stored.get("gws_2sv")?.observed).toEqual({ "2sv.enforced": false });

    // On the wire: the list's category filter and the finding carry the benchmark; others omit it.
    const listed = await listFindings(db.db, {
      orgId,
      status: "OPEN",
      category: "tenant_configuration",
      limit: 50,
      offset: 0,
    });
    expect(listed.findings).toHaveLength(2);
    expect(listed.findings.every((f) => f.benchmark?.name === "CIS Google Workspace Foundations")).toBe(true);
    const view = await getFindingView(db.db, { orgId, id: twoStep?.id ?? "" });
    expect(view.benchmark).toEqual(CHECKS[0]?.benchmark);
    expect(view.tenantCheck).toEqual({
      settings: { "2sv.enforced": false },
      expected: "true",
      fix: "Set 2sv.enforced to true",
    });
    const other = (await listFindings(db.db, { orgId, status: "OPEN", limit: 500, offset: 0 })).findings.find(
      (f) => f.category !== "tenant_configuration",
    );
    expect(other).toBeDefined();
    expect(other && "benchmark" in other).toBe(false);

    // Posture: its own category, and each failing check is a quick win titled by its fix.
    const posture = await computeOrgPosture(db.db, { orgId });
    expect(posture.categories.find((c) => c.category === "tenant_configuration")).toMatchObject({
      findingCount: 2,
    });
    expect(posture.quickWins).toContainEqual(
      expect.objectContaining({
        action: "change_setting",
        title: "Set 2sv.enforced to true",
        findingIds: [twoStep?.id],
      }),
    );

    read({ "2sv.enforced": true, "lsa.allowed": false, "dlp.enabled": false });
    const fixed = await scan();
    expect(fixed.findingsResolved).toBe(1);
    const after = new Map((await tenantFindings()).map((f) => [f.ruleId, f.status]));
    expect(after.get("gws_2sv")).toBe("RESOLVED");
    expect(after.get("gws_dlp")).toBe("OPEN");
    expect((await results()).get("gws_2sv")?.status).toBe("pass");
  });

  it("leaves a check it could not read unevaluated: no finding resolved, and the coverage says why", async () => {
    gaps = [{ feature: "MFA registration", missing: "Entra ID P1", detail: "mfaEnabled unknown" }];
    read(
      { "2sv.enforced": true, "lsa.allowed": false },
      { "dlp.enabled": "scope cloud-identity.policies.readonly not granted" },
    );
    const result = await scan();
    expect(result.status).toBe("COMPLETE");
    // gws_dlp failed before; unread now, it stays open rather than counting as fixed.
    expect(new Map((await tenantFindings()).map((f) => [f.ruleId, f.status])).get("gws_dlp")).toBe("OPEN");
    const stored = (await results()).get("gws_dlp");
    expect(stored).toMatchObject({
      status: "unavailable",
      reason: "dlp.enabled: scope cloud-identity.policies.readonly not granted",
    });
    expect(result.coverage).toEqual([
      { feature: "MFA registration", missing: "Entra ID P1", detail: "mfaEnabled unknown" },
      {
        feature: "Tenant settings",
        missing: "scope cloud-identity.policies.readonly not granted",
        detail: "Not read: dlp.enabled. Checks not evaluated: gws_dlp.",
      },
    ]);
    const [row] = await db.db
      .select({ coverage: scans.coverage })
      .from(scans)
      .where(eq(scans.id, result.scanId));
    expect(row?.coverage).toEqual(result.coverage);
    gaps = [];
  });

  it("completes the scan when the settings cannot be read at all", async () => {
    settings = async () => {
      throw new Error("Cloud Identity API answered 503");
    };
    const result = await scan();
    expect(result.status).toBe("COMPLETE");
    expect(result.coverage).toEqual([
      { feature: "Tenant settings", missing: "read failed", detail: "Cloud Identity API answered 503" },
    ]);
    expect([...(await results()).values()].every((r) => r.status === "unavailable")).toBe(true);
    // Nothing was measured, so nothing is resolved.
    expect(new Map((await tenantFindings()).map((f) => [f.ruleId, f.status])).get("gws_dlp")).toBe("OPEN");
  });
});
