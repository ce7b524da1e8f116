import type { TBenchmarkRef, TTenantCheck } from "@posture/benchmarks";
import type { TComplianceFramework, TSeverity } from "@posture/db";
import type { TKindAssessment, TKindStatus } from "./assess-kinds";
import type { TSignals } from "./signals";

export type TTenantCheckStatus = "pass" | "fail" | "unavailable";

/** One tenant check as a control names it: its id, the benchmark recommendation, how it stands. */
export type TTenantCheckEvidence = { id: string; benchmark: TBenchmarkRef; status: TTenantCheckStatus };

/** A tenant check's latest result in one organization, over all its connectors of the check's source. */
export type TTenantCheckSignal = TTenantCheckEvidence & { severity: TSeverity; title: string };

/**
 * The organization's results per check: failing on any connector fails it, passing needs every
 * connector that evaluated it to pass, and a check no connector could evaluate is unavailable.
 */
export function tenantCheckSignals(
  catalog: readonly TTenantCheck[],
  rows: ReadonlyArray<{ checkId: string; status: TTenantCheckStatus }>,
): TTenantCheckSignal[] {
  const byId = new Map<string, TTenantCheckStatus[]>();
  for (const r of rows) byId.set(r.checkId, [...(byId.get(r.checkId) ?? []), r.status]);
  return catalog.flatMap((check) => {
    const statuses = byId.get(check.id);
    if (!statuses) return [];
    const status: TTenantCheckStatus = statuses.includes("fail")
      ? "fail"
      : statuses.includes("pass")
        ? "pass"
        : "unavailable";
    return [
      { id: check.id, benchmark: check.benchmark, status, severity: check.severity, title: check.title },
    ];
  });
}

/** The checks of the catalog mapped to each control, by framework and control id. */
export function checksByControl(catalog: readonly TTenantCheck[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const check of catalog)
    for (const [framework, ids] of Object.entries(check.controls))
      for (const id of ids) {
        const key = controlKey(framework as TComplianceFramework, id);
        out.set(key, [...(out.get(key) ?? []), check.id]);
      }
  return out;
}

export const controlKey = (framework: TComplianceFramework, controlId: string) =>
  `${framework}\u0000${controlId}`;

/** How many checks a reason names before "and N more". */
const NAMED_AT_MOST = 5;

/**
 * The tenant checks behind one control as one piece of evidence, judged like the finding-backed
 * kinds: a failing CRITICAL or HIGH check fails it, a failing MEDIUM or LOW one makes it partial,
 * unavailable checks leave it partial (none when no check could be evaluated), all passing pass.
 */
export function assessTenantChecks(s: TSignals, checks: readonly TTenantCheckSignal[]): TKindAssessment {
  const failing = checks.filter((c) => c.status === "fail");
  const passing = checks.filter((c) => c.status === "pass");
  const unavailable = checks.filter((c) => c.status === "unavailable");
  const severe = failing.some((c) => c.severity === "CRITICAL" || c.severity === "HIGH");
  const status: TKindStatus =
    passing.length + failing.length === 0
      ? "none"
      : severe
        ? "fail"
        : failing.length > 0 || unavailable.length > 0
          ? "partial"
          : "pass";
  // Read by people (the gap report, the API's reasons): the check's title, never its machine id.
  const name = (c: TTenantCheckSignal) => `"${c.title}" (${c.benchmark.name} ${c.benchmark.id})`;
  // A reason is read in a table cell: the first few by name, then how many more.
  const names = (list: readonly TTenantCheckSignal[]) =>
    list.length <= NAMED_AT_MOST
      ? list.map(name).join(", ")
      : `${list.slice(0, NAMED_AT_MOST).map(name).join(", ")} and ${list.length - NAMED_AT_MOST} more`;
  const parts = [
    failing.length > 0 ? `failing: ${names(failing)}` : "",
    unavailable.length > 0 ? `not readable: ${names(unavailable)}` : "",
    `${passing.length} of ${checks.length} benchmark checks pass`,
  ].filter(Boolean);
  const failingIds = new Set(failing.map((c) => c.id));
  return {
    kind: "tenant_config",
    status,
    reason: parts.join("; "),
    findingIds: s.topFindings.filter((f) => failingIds.has(f.ruleId)).map((f) => f.id),
  };
}
