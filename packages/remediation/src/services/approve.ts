import { and, eq, isNull } from "drizzle-orm";
import { organizations, partnerAccess, remediations, type Db, type TRemediationStatus } from "@posture/db";
import { audit, AppError } from "@posture/platform";
import { actorRecord, type TPlanScope } from "./plan";
import { loadRemediation } from "./view";

type TRow = typeof remediations.$inferSelect;

/**
 * A remediation the caller may see: its own organization's, or (for a partner) one of a client it
 * manages. Anything else is 404, whatever the id.
 */
export async function findVisible(
  db: Db,
  scope: TPlanScope,
  id: string,
): Promise<{ row: TRow; partnerMayApprove: boolean; fourEyes: boolean; viaPartner: boolean }> {
  const [hit] = await db
    .select({
      row: remediations,
      managedBy: organizations.managedByOrgId,
      // Null when the client withdrew its partner's access (or never had a partner).
      partnerAccess: partnerAccess.partnerOrgId,
      partnerMayApprove: organizations.partnerMayApprove,
      fourEyes: organizations.remediationFourEyes,
    })
    .from(remediations)
    .innerJoin(organizations, eq(organizations.id, remediations.orgId))
    .leftJoin(
      partnerAccess,
      and(eq(partnerAccess.clientOrgId, remediations.orgId), isNull(partnerAccess.withdrawnAt)),
    )
    .where(eq(remediations.id, id));
  if (!hit) throw new AppError("not_found", "Remediation not found");
  const own = hit.row.orgId === scope.orgId;
  const managed = scope.isPartner && hit.managedBy === scope.orgId && hit.partnerAccess === scope.orgId;
  if (!own && !managed) throw new AppError("not_found", "Remediation not found");
  return { row: hit.row, partnerMayApprove: hit.partnerMayApprove, fourEyes: hit.fourEyes, viaPartner: !own };
}

/** GET /remediations/{id}: the plan and each step's status. */
export async function getPlan(db: Db, scope: TPlanScope, id: string) {
  const { row } = await findVisible(db, scope, id);
  return loadRemediation(db, { orgId: row.orgId, id: row.id });
}

/** Moves a remediation from `from` to `to` if it is still there (a concurrent move loses: 409). */
async function move(
  tx: Db,
  row: TRow,
  from: TRemediationStatus,
  set: Partial<typeof remediations.$inferInsert> & { status: TRemediationStatus },
): Promise<void> {
  const moved = await tx
    .update(remediations)
    .set(set)
    .where(and(eq(remediations.id, row.id), eq(remediations.status, from)))
    .returning({ id: remediations.id });
  if (moved.length === 0)
    throw new AppError("invalid_transition", `The remediation is no longer ${from}`, { status: row.status });
}

/**
 * Who is behind a plan, for four eyes: its planner, and for a prevention rule's plan the person who
 * made the rule act when nobody else had approved the rule (`request.ruleSetBy`, kept at planning).
 */
function authorsOf(row: TRow): string[] {
  const out = row.plannedBy.userId ? [row.plannedBy.userId] : [];
  const setBy = row.origin === "prevention" ? row.request.ruleSetBy : undefined;
  const approved = row.origin === "prevention" ? row.request.ruleApprovedBy : undefined;
  if (
    !approved &&
    setBy &&
    typeof setBy === "object" &&
    "userId" in setBy &&
    typeof setBy.userId === "string"
  )
    out.push(setBy.userId);
  return out;
}

/**
 * POST /remediations/{id}/approve: PLANNED → APPROVED by an ADMIN+ of the organization, or of its
 * managing partner when the organization lets it (partner_may_approve). With four eyes on, the
 * planner (same user, whichever organization they act from; an API key acts as its creator)
 * cannot approve, nor can the maker of an unapproved prevention rule approve its plan: 409
 * self_approval. A dry run is never approved.
 */
export async function approvePlan(db: Db, scope: TPlanScope, id: string) {
  const { row, partnerMayApprove, fourEyes, viaPartner } = await findVisible(db, scope, id);
  if (viaPartner && !partnerMayApprove)
    throw new AppError(
      "forbidden",
      "This organization's plans are approved by its own administrators (it has not let its partner approve)",
    );
  if (row.dryRun)
    throw new AppError(
      "invalid_transition",
      "A dry run records what it would have done: it cannot be approved",
      {
        status: row.status,
      },
    );
  if (row.status !== "PLANNED")
    throw new AppError(
      "invalid_transition",
      `Only a PLANNED remediation can be approved; this one is ${row.status}`,
      {
        status: row.status,
      },
    );
  if (fourEyes && scope.actor.userId !== null && authorsOf(row).includes(scope.actor.userId))
    throw new AppError(
      "self_approval",
      row.plannedBy.userId === scope.actor.userId
        ? "Four eyes are required: a different administrator must approve the plan"
        : "Four eyes are required: you made the prevention rule that planned this, and nobody else approved the rule; a different administrator must approve the plan",
    );
  await db.transaction(async (tx) => {
    await move(tx, row, "PLANNED", {
      status: "APPROVED",
      approvedBy: actorRecord(scope),
      approvedAt: new Date(),
    });
    await audit(
      tx,
      { orgId: row.orgId, actor: scope.actor },
      {
        action: "REMEDIATION_APPROVED",
        target: row.id,
        metadata: {
          steps: row.stepTotal,
          plannedBy: row.plannedBy.email,
          ...(viaPartner ? { partnerOrgId: scope.orgId } : {}),
        },
      },
    );
  });
  return loadRemediation(db, { orgId: row.orgId, id: row.id });
}

/** POST /remediations/{id}/cancel: PLANNED → CANCELLED (an approved plan is applied or left). */
export async function cancelPlan(db: Db, scope: TPlanScope, id: string) {
  const { row, viaPartner } = await findVisible(db, scope, id);
  if (row.status !== "PLANNED")
    throw new AppError(
      "invalid_transition",
      `Only a PLANNED remediation can be cancelled; this one is ${row.status}`,
      {
        status: row.status,
      },
    );
  await db.transaction(async (tx) => {
    await move(tx, row, "PLANNED", { status: "CANCELLED" });
    await audit(
      tx,
      { orgId: row.orgId, actor: scope.actor },
      {
        action: "REMEDIATION_CANCELLED",
        target: row.id,
        metadata: { steps: row.stepTotal, ...(viaPartner ? { partnerOrgId: scope.orgId } : {}) },
      },
    );
  });
  return loadRemediation(db, { orgId: row.orgId, id: row.id });
}
