import type { TSeverity } from "@posture/db";
import { GOOGLE_WORKSPACE_CHECKS, MICROSOFT_365_CHECKS, type TTenantCheck } from "@posture/benchmarks";
import { COMPLIANCE_FRAMEWORKS, type TComplianceFramework } from "../catalogs";
import { assessAll, evaluateFramework, tenantEvidenceIndex, type TControlStatus } from "./evaluate";
import type { TSignals } from "./signals";

// What-if evaluation (remediation plans, POST /posture/simulate): the same five frameworks judged
// on the organization's signals as they would be once some findings resolve (or are re-rated),
// some files stop being shared and some grants are revoked. Pure: the caller gathers the signals
// once and works out the changes with set-based SQL.

/** The tenant-check catalog both sources use (gather the signals with it). */
export const WHAT_IF_CHECKS: readonly TTenantCheck[] = [...GOOGLE_WORKSPACE_CHECKS, ...MICROSOFT_365_CHECKS];

export type TWhatIf = {
  /** Open findings that would resolve. */
  resolved?: ReadonlyArray<{ id: string; ruleId: string; severity: TSeverity }>;
  /** Open findings that would stay open at another severity (a trusted domain re-rates a share). */
  rerated?: ReadonlyArray<{ id: string; ruleId: string; from: TSeverity; to: TSeverity }>;
  /** How many files would stop being public / shared outside (public or external). */
  filesNoLongerPublic?: number;
  filesNoLongerExternal?: number;
  /** OAuth grants that would be revoked (rows of oauth_grants), by kind of count. */
  grantsRevoked?: { total: number; unverified: number; aiAgents: number };
  /** Active users who would no longer own an externally shared file. */
  riskySharersCleared?: number;
  /** Domains that would be added to the sharing allowlist. */
  trustedDomainsAdded?: number;
  /** The posture score and grade as they would be. */
  posture?: { score: number; grade: string };
};

export type TControlChange = {
  framework: TComplianceFramework;
  controlId: string;
  title: string;
  before: TControlStatus;
  after: TControlStatus;
};

const minus = (a: number, b: number | undefined) => Math.max(0, a - (b ?? 0));

/** The signals as they would be after the what-if (a new object; `s` is not changed). */
export function applyWhatIf(s: TSignals, w: TWhatIf): TSignals {
  const openByRule: TSignals["openByRule"] = {};
  for (const [rule, counts] of Object.entries(s.openByRule)) openByRule[rule] = { ...counts };
  const bump = (rule: string, severity: TSeverity, by: number) => {
    const counts = (openByRule[rule] ??= {});
    counts[severity] = Math.max(0, (counts[severity] ?? 0) + by);
  };
  for (const f of w.resolved ?? []) bump(f.ruleId, f.severity, -1);
  for (const f of w.rerated ?? []) {
    bump(f.ruleId, f.from, -1);
    bump(f.ruleId, f.to, 1);
  }
  const gone = new Set((w.resolved ?? []).map((f) => f.id));
  const rerated = new Map((w.rerated ?? []).map((f) => [f.id, f.to]));
  const topFindings = s.topFindings
    .filter((f) => !gone.has(f.id))
    .map((f) => ({ ...f, severity: rerated.get(f.id) ?? f.severity }));
  return {
    ...s,
    openByRule,
    topFindings,
    resolvedInPeriod: s.resolvedInPeriod + gone.size,
    posture: w.posture ?? s.posture,
    users: { ...s.users, riskySharers: minus(s.users.riskySharers, w.riskySharersCleared) },
    files: {
      ...s.files,
      public: minus(s.files.public, w.filesNoLongerPublic),
      external: minus(s.files.external, w.filesNoLongerExternal),
    },
    apps: {
      total: minus(s.apps.total, w.grantsRevoked?.total),
      unverified: minus(s.apps.unverified, w.grantsRevoked?.unverified),
      aiAgents: minus(s.apps.aiAgents, w.grantsRevoked?.aiAgents),
    },
    trustedDomains: s.trustedDomains + (w.trustedDomainsAdded ?? 0),
  };
}

/** Every control of the five frameworks whose status differs between the two sets of signals. */
export function controlChanges(
  before: TSignals,
  after: TSignals,
  catalog: readonly TTenantCheck[] = WHAT_IF_CHECKS,
): TControlChange[] {
  const judge = (s: TSignals) => {
    const kinds = assessAll(s);
    const tenant = tenantEvidenceIndex(s, catalog);
    return COMPLIANCE_FRAMEWORKS.map((f) => evaluateFramework(f, kinds, tenant));
  };
  const then = judge(before);
  const now = judge(after);
  const changes: TControlChange[] = [];
  then.forEach((framework, i) => {
    const next = new Map((now[i]?.controls ?? []).map((c) => [c.id, c.status]));
    for (const c of framework.controls) {
      const status = next.get(c.id);
      if (status !== undefined && status !== c.status)
        changes.push({
          framework: framework.framework,
          controlId: c.id,
          title: c.title,
          before: c.status,
          after: status,
        });
    }
  });
  return changes;
}
