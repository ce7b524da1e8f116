import { evaluateTenantChecks, type TTenantCheck } from "@posture/benchmarks";
import { testCheck } from "@posture/benchmarks/testing";
import { describe, expect, it } from "vitest";
import { fingerprintOf } from "./finding";
import { tenantCheckFindings } from "./tenant-findings";

const benchmark = { name: "CIS Google Workspace Foundations", version: "1.3.0", id: "4.1.1.1" };
const twoStep: TTenantCheck = testCheck({
  id: "gws_2sv_enforced",
  benchmark,
  title: "2-Step Verification is enforced for all users",
  settings: ["2sv.enforced"],
  expected: "enforced",
  test: (v) => v["2sv.enforced"] === true,
  fix: "Admin console > Security > 2-Step Verification > Enforcement: On",
});
const sharing: TTenantCheck = {
  ...twoStep,
  id: "gws_sharing",
  settings: ["drive.sharing"],
  test: () => true,
};

describe("tenantCheckFindings", () => {
  it("opens one finding per failing check, keyed by the check, with benchmark, settings, expected and fix", () => {
    const results = evaluateTenantChecks(
      [twoStep, sharing],
      [
        { key: "2sv.enforced", value: false, source: "GET x" },
        { key: "drive.sharing", value: "internal", source: "GET y" },
      ],
    );
    expect(tenantCheckFindings(results)).toEqual([
      {
        fingerprint: fingerprintOf("gws_2sv_enforced", "gws_2sv_enforced"),
        ruleId: "gws_2sv_enforced",
        category: "tenant_configuration",
        severity: "HIGH",
        title:
          "Not met: 2-Step Verification is enforced for all users (CIS Google Workspace Foundations 4.1.1.1)",
        resourceId: "gws_2sv_enforced",
        resourceName: "2-Step Verification is enforced for all users",
        resourceType: "tenant_setting",
        details: {
          benchmark,
          settings: { "2sv.enforced": false },
          expected: "enforced",
          fix: "Admin console > Security > 2-Step Verification > Enforcement: On",
        },
      },
    ]);
  });

  it("opens none for a check it could not evaluate", () => {
    const results = evaluateTenantChecks([twoStep], [{ key: "2sv.enforced", unavailable: "scope missing" }]);
    expect(results[0]?.status).toBe("unavailable");
    expect(tenantCheckFindings(results)).toEqual([]);
  });
});
