import { complianceRuns, type Db } from "@posture/db";
import type { TTenantCheck } from "@posture/benchmarks";
import { audit, type TActor } from "@posture/platform";
import { satisfiedPct as satisfiedPctOf, type TControlStatus } from "../engine/evaluate";
import type { TComplianceFramework } from "../catalogs";
import { evaluateOrg } from "./evaluation";
import type { TTenantCheckEvidence } from "../engine/tenant-checks";

export type TEvidenceReport = {
  runId: string;
  report: {
    framework: TComplianceFramework;
    periodDays: number;
    satisfied: number;
    partial: number;
    gap: number;
    controls: Array<{
      id: string;
      title: string;
      status: TControlStatus;
      reason: string;
      findingIds: string[];
      tenantChecks: TTenantCheckEvidence[];
    }>;
  };
};

/** POST /api/compliance/reports: evaluates one framework and stores the run with its reasons. */
export async function createEvidenceReport(
  db: Db,
  o: { orgId: string; actor: TActor; framework: TComplianceFramework; periodDays: number },
): Promise<TEvidenceReport> {
  const { results } = await evaluateOrg(db, {
    orgId: o.orgId,
    days: o.periodDays,
    frameworks: [o.framework],
  });
  const [r] = results;
  if (!r) throw new Error("framework evaluation missing");
  const controls = r.controls.map((c) => ({
    id: c.id,
    title: c.title,
    status: c.status,
    reason: c.reason,
    findingIds: c.findingIds,
    tenantChecks: c.tenantChecks,
  }));
  const runId = await db.transaction(async (tx) => {
    const [run] = await tx
      .insert(complianceRuns)
      .values({
        orgId: o.orgId,
        framework: o.framework,
        periodDays: o.periodDays,
        satisfied: r.satisfied,
        partial: r.partial,
        gap: r.gap,
        controls: r.controls as unknown as Array<Record<string, unknown>>,
        requestedByUserId: o.actor.userId,
      })
      .returning({ id: complianceRuns.id });
    if (!run) throw new Error("run insert failed");
    await audit(tx, o, {
      action: "COMPLIANCE_REPORT_CREATED",
      target: run.id,
      metadata: {
        framework: o.framework,
        periodDays: o.periodDays,
        satisfied: r.satisfied,
        partial: r.partial,
        gap: r.gap,
        pct: satisfiedPctOf(r),
      },
    });
    return run.id;
  });
  return {
    runId,
    report: {
      framework: o.framework,
      periodDays: o.periodDays,
      satisfied: r.satisfied,
      partial: r.partial,
      gap: r.gap,
      controls,
    },
  };
}

export type TDashboard = {
  periodDays: number;
  frameworks: Array<{
    id: TComplianceFramework;
    name: string;
    satisfiedPct: number;
    satisfied: number;
    partial: number;
    gap: number;
    controls: number;
    evidencedByTenantChecks: number;
    tenantControls: Array<{
      id: string;
      title: string;
      status: TControlStatus;
      tenantChecks: TTenantCheckEvidence[];
    }>;
  }>;
  crossGaps: Array<{ theme: string; frameworks: TComplianceFramework[]; reason: string }>;
};

export const DASHBOARD_DAYS = 30;

/** GET /api/compliance/dashboard: every framework over the last 30 days, and the themes failing in several. */
export async function getDashboard(
  db: Db,
  o: { orgId: string; tenantChecks?: readonly TTenantCheck[] },
): Promise<TDashboard> {
  const e = await evaluateOrg(db, {
    orgId: o.orgId,
    days: DASHBOARD_DAYS,
    ...(o.tenantChecks ? { tenantChecks: o.tenantChecks } : {}),
  });
  return {
    periodDays: DASHBOARD_DAYS,
    frameworks: e.results.map((r) => ({
      id: r.framework,
      name: r.name,
      satisfiedPct: satisfiedPctOf(r),
      satisfied: r.satisfied,
      partial: r.partial,
      gap: r.gap,
      controls: r.controls.length,
      evidencedByTenantChecks: r.evidencedByTenantChecks,
      tenantControls: r.controls
        .filter((c) => c.tenantChecks.length > 0)
        .map((c) => ({ id: c.id, title: c.title, status: c.status, tenantChecks: c.tenantChecks })),
    })),
    crossGaps: e.crossGaps.map((g) => ({ theme: g.theme, frameworks: g.frameworks, reason: g.reason })),
  };
}
