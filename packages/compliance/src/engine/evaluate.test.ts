import { describe, expect, it } from "vitest";
import { FRAMEWORKS, COMPLIANCE_FRAMEWORKS } from "../catalogs";
import { assessAll, controlStatus, crossGaps, evaluateFramework, satisfiedPct } from "./evaluate";
import { signals } from "./test-signals";

describe("catalogs", () => {
  it("have unique real ids per framework", () => {
    for (const f of COMPLIANCE_FRAMEWORKS) {
      const ids = FRAMEWORKS[f].controls.map((c) => c.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(FRAMEWORKS.nist_csf.controls.every((c) => /^[A-Z]{2}\.[A-Z]{2}-\d{2}$/.test(c.id))).toBe(true);
    expect(FRAMEWORKS.iso27001.controls.every((c) => /^A\.[5-8]\.\d+$/.test(c.id))).toBe(true);
    expect(FRAMEWORKS.hipaa.controls.every((c) => c.id.startsWith("164.3"))).toBe(true);
  });
});

describe("controlStatus", () => {
  const e = (status: "pass" | "partial" | "fail" | "none") => ({
    kind: "mfa" as const,
    status,
    reason: "",
    findingIds: [],
  });
  it("fails on any failing evidence, needs all evidence to pass", () => {
    expect(controlStatus([e("pass"), e("pass")])).toBe("SATISFIED");
    expect(controlStatus([e("pass"), e("partial")])).toBe("PARTIAL");
    expect(controlStatus([e("pass"), e("none")])).toBe("PARTIAL");
    expect(controlStatus([e("none"), e("none")])).toBe("GAP");
    expect(controlStatus([e("pass"), e("fail")])).toBe("GAP");
    expect(controlStatus([])).toBe("GAP");
  });
});

describe("evaluateFramework", () => {
  it("a clean, monitored organization satisfies everything with automated evidence", () => {
    for (const f of COMPLIANCE_FRAMEWORKS) {
      const r = evaluateFramework(f, assessAll(signals()));
      expect(r.satisfied + r.partial + r.gap).toBe(r.controls.length);
      const notSatisfied = r.controls.filter((c) => c.status !== "SATISFIED").map((c) => c.id);
      expect(notSatisfied).toEqual(f === "hipaa" ? ["164.312(a)(2)(iii)"] : []);
    }
  });

  it("a CRITICAL MFA finding makes MFA controls gaps, names the findings, and shows across frameworks", () => {
    const s = signals({
      openByRule: { admin_without_mfa: { CRITICAL: 1 } },
      topFindings: [
        {
          id: "fnd_1",
          ruleId: "admin_without_mfa",
          severity: "CRITICAL",
          title: "Admin without MFA",
          resourceName: "a@x",
          source: "google_workspace",
        },
      ],
      users: { total: 50, active: 48, mfa: 40, admins: 3, adminsWithoutMfa: 1, dormant: 0, riskySharers: 1 },
    });
    const kinds = assessAll(s);
    const soc2 = evaluateFramework("soc2", kinds);
    const cc61 = soc2.controls.find((c) => c.id === "CC6.1");
    expect(cc61).toMatchObject({ status: "GAP", findingIds: ["fnd_1"] });
    expect(cc61?.reason).toContain("MFA coverage 83.3% (40/48 active users)");
    const all = COMPLIANCE_FRAMEWORKS.map((f) => evaluateFramework(f, kinds));
    expect(crossGaps(all).find((g) => g.theme === "MFA")?.frameworks).toEqual(COMPLIANCE_FRAMEWORKS.slice());
  });

  it("a broken audit chain fails logging; no scan in the period leaves rule-backed evidence uncollected", () => {
    const broken = evaluateFramework(
      "iso27001",
      assessAll(signals({ audit: { entriesInPeriod: 5, total: 9, chainIntact: false, brokenAtSeq: 7 } })),
    );
    expect(broken.controls.find((c) => c.id === "A.8.15")).toMatchObject({
      status: "GAP",
      reason: expect.stringContaining("broken at entry 7"),
    });
    const idle = evaluateFramework(
      "gdpr",
      assessAll(signals({ sources: { connected: 1, unhealthy: 0, scansInPeriod: 0, lastScanAt: null } })),
    );
    expect(idle.controls.find((c) => c.id === "Art. 5(1)(f)")?.status).toBe("GAP");
    // A configured allowlist still counts when the sharing itself was not measured.
    expect(idle.controls.find((c) => c.id === "Art. 25")?.status).toBe("PARTIAL");
    expect(satisfiedPct({ satisfied: 1, partial: 1, gap: 1 })).toBe(33.3);
  });
});
