import { describe, expect, it } from "vitest";
import { GOOGLE_WORKSPACE_CHECKS, MICROSOFT_365_CHECKS, type TTenantCheck } from "@posture/benchmarks";
import { TEST_CONTROLS, testCheck } from "@posture/benchmarks/testing";
import { COMPLIANCE_FRAMEWORKS, FRAMEWORKS } from "../catalogs";
import { assessAll, evaluateFramework, tenantEvidenceIndex } from "./evaluate";
import { tenantCheckSignals } from "./tenant-checks";
import { signals } from "./test-signals";

const bench = (id: string) => ({ name: "CIS Google Workspace Foundations", version: "1.3.0", id });
const check = (id: string, severity: TTenantCheck["severity"], hipaa: string[]): TTenantCheck =>
  testCheck({
    id,
    benchmark: bench(id.length.toString()),
    title: `Setting ${id.slice(4)} is on`,
    severity,
    settings: [id],
    expected: "on",
    test: () => true,
    fix: "turn it on",
    controls: { ...TEST_CONTROLS, hipaa },
  });
// Automatic logoff has no automated evidence of its own: a session-timeout check is its only one.
const LOGOFF = "164.312(a)(2)(iii)";
const timeout = check("gws_session_timeout", "MEDIUM", [LOGOFF]);
const twoStep = check("gws_2sv", "HIGH", ["164.312(d)"]);
const CATALOG = [timeout, twoStep];

const evaluate = (rows: Array<{ checkId: string; status: "pass" | "fail" | "unavailable" }>) => {
  const s = signals({ tenantChecks: tenantCheckSignals(CATALOG, rows) });
  return evaluateFramework("hipaa", assessAll(s), tenantEvidenceIndex(s, CATALOG));
};

describe("tenant checks as compliance evidence", () => {
  it("a control with no evidence of its own is satisfied by its passing checks, and names them", () => {
    const before = evaluateFramework("hipaa", assessAll(signals()));
    expect(before.controls.find((c) => c.id === LOGOFF)).toMatchObject({ status: "GAP", tenantChecks: [] });
    expect(before.evidencedByTenantChecks).toBe(0);

    const r = evaluate([{ checkId: "gws_session_timeout", status: "pass" }]);
    const logoff = r.controls.find((c) => c.id === LOGOFF);
    expect(logoff).toMatchObject({
      status: "SATISFIED",
      tenantChecks: [{ id: "gws_session_timeout", benchmark: timeout.benchmark, status: "pass" }],
    });
    expect(logoff?.reason).toContain("Tenant configuration: 1 of 1 benchmark checks pass");
    // Only controls whose checks ran count: gws_2sv has no result.
    expect(r.evidencedByTenantChecks).toBe(1);
  });

  it("a failing HIGH check fails its controls, a failing MEDIUM one makes them partial", () => {
    const r = evaluate([
      { checkId: "gws_session_timeout", status: "fail" },
      { checkId: "gws_2sv", status: "fail" },
    ]);
    expect(r.controls.find((c) => c.id === LOGOFF)?.status).toBe("PARTIAL");
    const auth = r.controls.find((c) => c.id === "164.312(d)");
    expect(auth?.status).toBe("GAP");
    // The check's title, for people: never its machine id (issue 33, item 8).
    expect(auth?.reason).toContain('failing: "Setting 2sv is on" (CIS Google Workspace Foundations 7)');
    expect(auth?.reason).not.toContain("gws_2sv");
    expect(r.evidencedByTenantChecks).toBe(2);
  });

  it("one failing connector fails the check; a check no connector could read leaves its control partial", () => {
    expect(
      tenantCheckSignals(CATALOG, [
        { checkId: "gws_2sv", status: "pass" },
        { checkId: "gws_2sv", status: "fail" },
        { checkId: "gws_session_timeout", status: "unavailable" },
        { checkId: "not_in_catalog", status: "fail" },
      ]).map((c) => [c.id, c.status]),
    ).toEqual([
      ["gws_session_timeout", "unavailable"],
      ["gws_2sv", "fail"],
    ]);
    const r = evaluate([
      { checkId: "gws_session_timeout", status: "unavailable" },
      { checkId: "gws_2sv", status: "pass" },
    ]);
    // Nothing readable: no evidence collected for logoff (as a kind with no scan), so still a gap.
    expect(r.controls.find((c) => c.id === LOGOFF)?.status).toBe("GAP");
    expect(r.controls.find((c) => c.id === "164.312(d)")?.status).toBe("SATISFIED");
  });

  it("names the first five failing checks of a control and counts the rest", () => {
    const many = Array.from({ length: 7 }, (_, i) => check(`gws_c${i}`, "LOW", [LOGOFF]));
    const s = signals({
      tenantChecks: tenantCheckSignals(
        many,
        many.map((c) => ({ checkId: c.id, status: "fail" as const })),
      ),
    });
    const reason = evaluateFramework("hipaa", assessAll(s), tenantEvidenceIndex(s, many)).controls.find(
      (c) => c.id === LOGOFF,
    )?.reason;
    expect(reason).toContain(
      'failing: "Setting c0 is on" (CIS Google Workspace Foundations 6), "Setting c1 is on"',
    );
    expect(reason).toContain('"Setting c4 is on" (CIS Google Workspace Foundations 6) and 2 more');
    expect(reason).not.toContain("Setting c5");
  });
});

describe("the benchmark catalogs", () => {
  it("map every check only to controls of the five frameworks' catalogs", () => {
    for (const c of [...GOOGLE_WORKSPACE_CHECKS, ...MICROSOFT_365_CHECKS])
      for (const f of COMPLIANCE_FRAMEWORKS) {
        const known = new Set(FRAMEWORKS[f].controls.map((x) => x.id));
        for (const id of c.controls[f]) expect(known.has(id), `${c.id} → ${f} ${id}`).toBe(true);
      }
  });
});
