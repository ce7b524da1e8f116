import {
  EVIDENCE_KINDS,
  FRAMEWORKS,
  KIND_THEMES,
  type TComplianceFramework,
  type TEvidenceKind,
} from "../catalogs";
import { assessKind, type TKindAssessment } from "./assess-kinds";
import type { TSignals } from "./signals";
import {
  assessTenantChecks,
  checksByControl,
  controlKey,
  type TTenantCheckEvidence,
  type TTenantCheckSignal,
} from "./tenant-checks";
import type { TTenantCheck } from "@posture/benchmarks";

export const CONTROL_STATUSES = ["SATISFIED", "PARTIAL", "GAP"] as const;
export type TControlStatus = (typeof CONTROL_STATUSES)[number];

export type TControlResult = {
  id: string;
  title: string;
  status: TControlStatus;
  /** One sentence an auditor can read: why this status. */
  reason: string;
  evidence: TKindAssessment[];
  findingIds: string[];
  /** The tenant-configuration checks evidencing this control (empty when none is mapped or run). */
  tenantChecks: TTenantCheckEvidence[];
};

export type TFrameworkResult = {
  framework: TComplianceFramework;
  name: string;
  version: string;
  satisfied: number;
  partial: number;
  gap: number;
  /** Controls with tenant-check evidence. */
  evidencedByTenantChecks: number;
  controls: TControlResult[];
};

/** The tenant checks that evidence a control, with their assessment; null when there are none. */
export type TTenantEvidenceOf = (
  framework: TComplianceFramework,
  controlId: string,
) => { checks: TTenantCheckSignal[]; assessment: TKindAssessment } | null;

export const NO_TENANT_EVIDENCE: TTenantEvidenceOf = () => null;

/**
 * Which of the organization's tenant-check results evidence which control: each check of the
 * catalog names its controls in all five frameworks. A control whose mapped checks have no result
 * (no connector of their source, or no scan in the period) is judged as before.
 */
export function tenantEvidenceIndex(s: TSignals, catalog: readonly TTenantCheck[]): TTenantEvidenceOf {
  const byControl = checksByControl(catalog);
  const results = new Map(s.tenantChecks.map((c) => [c.id, c]));
  return (framework, controlId) => {
    const checks = (byControl.get(controlKey(framework, controlId)) ?? []).flatMap((id) => {
      const r = results.get(id);
      return r ? [r] : [];
    });
    return checks.length === 0 ? null : { checks, assessment: assessTenantChecks(s, checks) };
  };
}

/**
 * A control is a GAP when any of its evidence fails or none of it could be collected, PARTIAL
 * when some evidence is partial or missing, SATISFIED when all of it passes (as Prowler: one
 * failing check fails the requirement; as Drata: ready only when every piece is ready).
 */
export function controlStatus(evidence: readonly TKindAssessment[]): TControlStatus {
  if (evidence.length === 0) return "GAP";
  if (evidence.some((e) => e.status === "fail")) return "GAP";
  if (evidence.every((e) => e.status === "none")) return "GAP";
  if (evidence.some((e) => e.status !== "pass")) return "PARTIAL";
  return "SATISFIED";
}

function reasonOf(status: TControlStatus, evidence: readonly TKindAssessment[]): string {
  if (evidence.length === 0) return "No automated evidence: attach the configuration by hand.";
  const pick = status === "SATISFIED" ? evidence : evidence.filter((e) => e.status !== "pass");
  return pick.map((e) => `${KIND_THEMES[e.kind]}: ${e.reason}`).join(". ") + ".";
}

/** Every kind assessed once: frameworks share the facts, so the same theme never disagrees with itself. */
export function assessAll(s: TSignals): Record<TEvidenceKind, TKindAssessment> {
  return Object.fromEntries(EVIDENCE_KINDS.map((k) => [k, assessKind(s, k)])) as Record<
    TEvidenceKind,
    TKindAssessment
  >;
}

export function evaluateFramework(
  framework: TComplianceFramework,
  kinds: Record<TEvidenceKind, TKindAssessment>,
  tenantEvidenceOf: TTenantEvidenceOf = NO_TENANT_EVIDENCE,
): TFrameworkResult {
  const f = FRAMEWORKS[framework];
  const controls = f.controls.map((c): TControlResult => {
    const tenant = tenantEvidenceOf(framework, c.id);
    const evidence = [...c.kinds.map((k) => kinds[k]), ...(tenant ? [tenant.assessment] : [])];
    const status = controlStatus(evidence);
    const findingIds = [...new Set(evidence.filter((e) => e.status !== "pass").flatMap((e) => e.findingIds))];
    return {
      id: c.id,
      title: c.title,
      status,
      reason: reasonOf(status, evidence),
      evidence,
      findingIds,
      tenantChecks: (tenant?.checks ?? []).map((t) => ({
        id: t.id,
        benchmark: t.benchmark,
        status: t.status,
      })),
    };
  });
  const count = (s: TControlStatus) => controls.filter((c) => c.status === s).length;
  return {
    framework,
    name: f.name,
    version: f.version,
    satisfied: count("SATISFIED"),
    partial: count("PARTIAL"),
    gap: count("GAP"),
    evidencedByTenantChecks: controls.filter((c) => c.tenantChecks.length > 0).length,
    controls,
  };
}

export type TCrossGap = {
  theme: string;
  kind: TEvidenceKind;
  frameworks: TComplianceFramework[];
  reason: string;
};

/** Themes whose evidence fails (or partly fails) in controls of two or more frameworks. */
export function crossGaps(results: readonly TFrameworkResult[]): TCrossGap[] {
  const byKind = new Map<
    TEvidenceKind,
    { frameworks: Set<TComplianceFramework>; reason: string; fail: boolean }
  >();
  for (const r of results)
    for (const c of r.controls)
      for (const e of c.evidence) {
        if (e.status !== "fail" && e.status !== "partial") continue;
        const entry = byKind.get(e.kind) ?? {
          frameworks: new Set(),
          reason: e.reason,
          fail: e.status === "fail",
        };
        entry.frameworks.add(r.framework);
        byKind.set(e.kind, entry);
      }
  return [...byKind.entries()]
    .filter(([, v]) => v.frameworks.size >= 2)
    .sort((a, b) => Number(b[1].fail) - Number(a[1].fail) || b[1].frameworks.size - a[1].frameworks.size)
    .map(([kind, v]) => ({
      theme: KIND_THEMES[kind],
      kind,
      frameworks: [...v.frameworks],
      reason: v.reason,
    }));
}

export function satisfiedPct(r: Pick<TFrameworkResult, "satisfied" | "partial" | "gap">): number {
  const total = r.satisfied + r.partial + r.gap;
  return total === 0 ? 0 : Math.round((r.satisfied / total) * 1000) / 10;
}
