import { remediationSteps, remediations, type Db } from "@posture/db";
import { AppError } from "@posture/platform";
import { and, asc, eq } from "drizzle-orm";
import type { TRemediation, TStep } from "../procedures/remediation.types";

type TRemediationRow = typeof remediations.$inferSelect;
type TStepRow = typeof remediationSteps.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const actorView = (a: TRemediationRow["plannedBy"]) => ({
  kind: a.kind,
  email: a.email,
  organizationId: a.orgId,
});

export function stepView(s: TStepRow): TStep {
  return {
    id: s.id,
    seq: s.seq,
    action: s.action,
    connectorId: s.connectorId,
    resource: s.resource,
    before: s.before,
    after: s.after,
    reversible: s.reversible,
    irreversibleReason: s.irreversibleReason,
    findingIds: s.findingIds,
    people: s.people,
    status: s.status,
    error: s.error,
    appliedAt: iso(s.appliedAt),
    revertedAt: iso(s.revertedAt),
  };
}

/** A remediation as the list shows it: no steps, their counts. */
export function summaryView(r: TRemediationRow, reversible: boolean) {
  return {
    id: r.id,
    organizationId: r.orgId,
    status: r.status,
    origin: r.origin,
    preventionRuleId: r.preventionRuleId,
    dryRun: r.dryRun,
    predicted: r.predicted as TRemediation["predicted"],
    stepCount: r.stepTotal,
    stepCounts: r.stepCounts,
    reversible,
    plannedBy: actorView(r.plannedBy),
    approvedBy: r.approvedBy ? actorView(r.approvedBy) : null,
    createdAt: r.createdAt.toISOString(),
    approvedAt: iso(r.approvedAt),
    finishedAt: iso(r.finishedAt),
    undoUntil: iso(r.undoUntil),
    revertedAt: iso(r.revertedAt),
    undoRequest: r.undoRequest
      ? {
          requestedBy: { ...actorView(r.undoRequest.requestedBy), role: r.undoRequest.requestedBy.role },
          requestedAt: r.undoRequest.requestedAt,
          confirmedBy: r.undoRequest.confirmedBy
            ? { ...actorView(r.undoRequest.confirmedBy), role: r.undoRequest.confirmedBy.role }
            : null,
          confirmedAt: r.undoRequest.confirmedAt,
        }
      : null,
  };
}

/** The detail: the plan and every step, in order. */
export function remediationView(r: TRemediationRow, steps: readonly TStepRow[]): TRemediation {
  const people = [...new Set(steps.flatMap((s) => s.people))].sort();
  return {
    ...summaryView(
      r,
      steps.some((s) => s.reversible),
    ),
    request: r.request,
    steps: steps.map(stepView),
    controls: r.controls as TRemediation["controls"],
    people,
    // Kept with the prediction (no column of their own): what the plan fixes and leaves.
    fixedFindingIds: Array.isArray(r.predicted.fixedFindingIds)
      ? (r.predicted.fixedFindingIds as string[])
      : [],
    skipped: Array.isArray(r.predicted.skipped) ? (r.predicted.skipped as TRemediation["skipped"]) : [],
  };
}

/** Loads one remediation of the organization with its steps; another organization's id is 404. */
export async function loadRemediation(db: Db, input: { orgId: string; id: string }): Promise<TRemediation> {
  const [row] = await db
    .select()
    .from(remediations)
    .where(and(eq(remediations.id, input.id), eq(remediations.orgId, input.orgId)));
  if (!row) throw new AppError("not_found", "Remediation not found");
  const steps = await db
    .select()
    .from(remediationSteps)
    .where(eq(remediationSteps.remediationId, row.id))
    .orderBy(asc(remediationSteps.seq));
  return remediationView(row, steps);
}
