import { and, eq, sql } from "drizzle-orm";
import {
  organizations,
  queryRows,
  remediations,
  ROLES,
  type Db,
  type TRemediationStatus,
  type TRole,
  type TUndoRequest,
} from "@posture/db";
import { AppError, SYSTEM_ACTOR, audit, type TActor, type TJobQueue } from "@posture/platform";
import { withEvents } from "@posture/webhooks";
import { REMEDIATION_UNDO_JOB, undoJobId } from "./apply";
import { personOf, type TPerson } from "./four-eyes";
import { remediationLink } from "./plan";
import { recordRemediationEvent } from "./record";
import { lockRemediation } from "./store-sync";

type TRemediationRow = typeof remediations.$inferSelect;
type TRequester = TUndoRequest["requestedBy"];

const personOfRequester = (r: TRequester): TPerson =>
  personOf({ actor: r, role: (ROLES as readonly string[]).includes(r.role) ? (r.role as TRole) : null });

/** The applied steps an undo would put back, and the applied ones it cannot. */
async function undoableSteps(tx: Db, id: string): Promise<{ reversible: number; irreversible: number }> {
  const [row] = await queryRows<{ reversible: number; irreversible: number }>(
    tx,
    sql`SELECT count(*) FILTER (WHERE reversible)::int AS reversible,
               count(*) FILTER (WHERE NOT reversible)::int AS irreversible
        FROM remediation_steps WHERE remediation_id = ${id} AND status = 'APPLIED'`,
  );
  return { reversible: row?.reversible ?? 0, irreversible: row?.irreversible ?? 0 };
}

/** The first person's request, still waiting for a second (not confirmed, not spent by a start). */
const pendingOf = (rem: TRemediationRow) =>
  rem.undoRequest && rem.undoRequest.confirmedBy === null && !rem.undoRequest.startedAt
    ? rem.undoRequest
    : null;

/**
 * POST /remediations/{id}/undo: (APPLIED, PARTIAL) → REVERTING within the undo window, audited, the
 * job queued. Refused (409 nothing_to_undo) before anything moves when no applied step can be put
 * back. With four eyes on it takes two different people, whatever their roles: the first call
 * records the request (REMEDIATION_UNDO_REQUESTED, `remediation.undo.requested`) and the status
 * stays; the same person again is 409 self_approval (an API key is its creator); a different
 * ADMIN or OWNER starts it. Every start is audited (REMEDIATION_UNDO_STARTED) and announced
 * (`remediation.reverting` with who asked and who confirmed).
 */
export async function requestUndo(
  db: Db,
  input: { orgId: string; actor: TActor; role?: TRole; id: string; now?: Date },
  deps: { jobs: TJobQueue; publicUrl?: string },
): Promise<{ started: boolean }> {
  const now = input.now ?? new Date();
  const link = remediationLink(deps.publicUrl ?? "http://localhost", input.id);
  const outcome = await withEvents(db, deps.jobs, async (tx, emit) => {
    const rem = await lockRemediation(tx, input.id, input.orgId);
    if (!rem) throw new AppError("not_found", "Remediation not found");
    if (rem.status !== "APPLIED" && rem.status !== "PARTIAL")
      throw new AppError(
        "invalid_transition",
        `Only an APPLIED or PARTIAL remediation can be undone; this one is ${rem.status}`,
      );
    if (!rem.undoUntil || rem.undoUntil.getTime() < now.getTime())
      throw new AppError(
        "invalid_transition",
        `The undo window closed at ${rem.undoUntil?.toISOString() ?? "the apply's end"} (30 days after the apply finished)`,
        { undoUntil: rem.undoUntil?.toISOString() ?? null },
      );
    const steps = await undoableSteps(tx, rem.id);
    if (steps.reversible === 0)
      throw new AppError(
        "nothing_to_undo",
        `Nothing to undo: none of this remediation's applied steps can be put back (${steps.irreversible} irreversible)`,
        { irreversible: steps.irreversible },
      );
    const [org] = await tx
      .select({ fourEyes: organizations.remediationFourEyes })
      .from(organizations)
      .where(eq(organizations.id, rem.orgId));
    const me: TRequester = {
      kind: input.actor.kind,
      userId: input.actor.userId,
      email: input.actor.email,
      orgId: input.orgId,
      role: input.role ?? "system",
    };
    const pending = pendingOf(rem);
    let request: TUndoRequest;
    if (org?.fourEyes) {
      if (input.actor.userId === null)
        throw new AppError("forbidden", "Four eyes is on: an undo is asked for by people");
      if (!pending) {
        await tx
          .update(remediations)
          .set({
            undoRequest: {
              requestedBy: me,
              requestedAt: now.toISOString(),
              confirmedBy: null,
              confirmedAt: null,
            },
          })
          .where(eq(remediations.id, rem.id));
        await audit(tx, input, {
          action: "REMEDIATION_UNDO_REQUESTED",
          target: rem.id,
          metadata: { reversibleSteps: steps.reversible, role: me.role },
        });
        await emit({
          orgId: rem.orgId,
          type: "remediation.undo.requested",
          data: {
            remediationId: rem.id,
            status: rem.status,
            requestedBy: personOfRequester(me),
            reversibleSteps: steps.reversible,
            link,
          },
        });
        return { started: false };
      }
      if (pending.requestedBy.userId === input.actor.userId)
        throw new AppError(
          "self_approval",
          "Four eyes are required: you asked for this undo; a different administrator must ask for it too",
          { requestedAt: pending.requestedAt },
        );
      request = { ...pending, confirmedBy: me, confirmedAt: now.toISOString() };
    } else {
      request = { requestedBy: me, requestedAt: now.toISOString(), confirmedBy: null, confirmedAt: null };
    }
    await tx
      .update(remediations)
      .set({ status: "REVERTING", undoRequest: { ...request, startedAt: now.toISOString() } })
      .where(eq(remediations.id, rem.id));
    await audit(tx, input, {
      action: "REMEDIATION_UNDO_STARTED",
      target: rem.id,
      metadata: {
        requestedBy: request.requestedBy.email,
        confirmedBy: request.confirmedBy?.email ?? null,
        reversibleSteps: steps.reversible,
      },
    });
    await emit({
      orgId: rem.orgId,
      type: "remediation.reverting",
      data: {
        remediationId: rem.id,
        status: "REVERTING",
        requestedBy: personOfRequester(request.requestedBy),
        confirmedBy: request.confirmedBy ? personOfRequester(request.confirmedBy) : null,
        reversibleSteps: steps.reversible,
        link,
      },
    });
    return { started: true };
  });
  if (outcome.started)
    await deps.jobs.enqueue(
      REMEDIATION_UNDO_JOB,
      { remediationId: input.id },
      { jobId: undoJobId(input.id) },
    );
  return outcome;
}

/**
 * The end of an undo that put nothing back (every restore refused, or the job gave up before the
 * first): not REVERTED, which would say the tenant is as it was. The remediation is APPLIED (or
 * PARTIAL, when some of its steps had failed) again, its undo request and the steps' refusals
 * cleared (a new undo asks two people again and tries every step again), within the same window; audited (REMEDIATION_UNDO_FAILED) and announced
 * (`remediation.undo.failed`). Runs in the finishing transaction, the remediation locked.
 */
export async function undoneNothing(
  tx: Db,
  rem: TRemediationRow,
  counts: Record<string, number>,
): Promise<{ status: TRemediationStatus; deliveries: string[] }> {
  const status = (counts.FAILED ?? 0) > 0 ? "PARTIAL" : "APPLIED";
  const notReverted = counts.APPLIED ?? 0;
  await tx
    .update(remediations)
    .set({ status, undoRequest: null })
    .where(and(eq(remediations.id, rem.id), eq(remediations.status, "REVERTING")));
  // The refusals are forgotten with the request: a new undo tries every applied step again.
  await tx.execute(
    sql`UPDATE remediation_steps SET pre_image = pre_image - 'undoError' - 'undoStartedAt'
        WHERE remediation_id = ${rem.id} AND status = 'APPLIED' AND pre_image IS NOT NULL`,
  );
  await audit(
    tx,
    { orgId: rem.orgId, actor: SYSTEM_ACTOR },
    { action: "REMEDIATION_UNDO_FAILED", target: rem.id, metadata: { counts, notReverted } },
  );
  const deliveries = await recordRemediationEvent(tx, {
    orgId: rem.orgId,
    type: "remediation.undo.failed",
    data: { remediationId: rem.id, status, notReverted },
  });
  return { status, deliveries };
}
