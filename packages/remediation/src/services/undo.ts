import { and, desc, eq } from "drizzle-orm";
import {
  SourceWriteError,
  type TGrantImage,
  type TPermissionImage,
  type TPermissionRole,
  type TSourceWriter,
  type TWriteFile,
} from "@posture/connectors";
import { remediations, remediationSteps, type TRemediationStatus } from "@posture/db";
import { SYSTEM_ACTOR, audit } from "@posture/platform";
import { dispatchDeliveries } from "@posture/webhooks";
import {
  REMEDIATION_ATTEMPTS,
  stepErrorOf,
  throttled,
  writersOf,
  type TRemediationDeps,
  type TStepError,
} from "./apply";
import { recordRemediationEvent } from "./record";
import { undoneNothing } from "./undo-request";
import { remediationLink } from "./plan";
import {
  lockFindings,
  preImageOf,
  refreshStepCounts,
  reopenFindings,
  storeAfterUndo,
  type TPreImage,
  type TStepRow,
  lockRemediation,
} from "./store-sync";

type TRemediationRow = typeof remediations.$inferSelect;
type TUndoPreImage = TPreImage & { undoError?: TStepError };

const fileOf = (step: TStepRow): TWriteFile => {
  const r = step.resource;
  if (r.kind === "grant") throw new Error(`step ${step.id} acts on a grant`);
  return { id: r.fileId, driveId: r.driveId, ownerEmail: r.ownerEmail };
};

/** The role a downgraded permission had: what undo puts back. */
const formerRoleOf = (pre: TPreImage | null): TPermissionRole | null =>
  ((pre?.source as TPermissionImage | null)?.role ??
    (pre?.store as { role?: string } | null)?.role ??
    null) as TPermissionRole | null;

/**
 * A restore started by an earlier try and not recorded: whether the source already has it back
 * (Google gives a re-created permission its former id; a grant keeps its id). Returns the id.
 */
async function restoredAlready(
  writer: TSourceWriter,
  step: TStepRow,
  pre: TPreImage,
): Promise<string | null> {
  switch (step.action) {
    case "remove_public_link":
    case "remove_external_user":
    case "remove_external_domain": {
      const image = pre.source as TPermissionImage | null;
      if (!image) return null;
      return (await writer.readPermission(fileOf(step), image.id)) ? image.id : null;
    }
    case "revoke_oauth_grant": {
      const image = pre.source as TGrantImage | null;
      const r = step.resource;
      if (!image || r.kind !== "grant") return null;
      return (await writer.readGrant({ id: image.id, clientId: r.clientId, userEmail: r.userEmail }))
        ? image.id
        : null;
    }
    default:
      // A role or an owner set back twice is the same change: sent again.
      return null;
  }
}

/** The one change that puts a step back; returns the id the source gave a re-created permission or grant. */
async function restore(writer: TSourceWriter, step: TStepRow, pre: TPreImage | null): Promise<string | null> {
  const r = step.resource;
  switch (step.action) {
    case "remove_public_link":
    case "remove_external_user":
    case "remove_external_domain": {
      const image = pre?.source as TPermissionImage | null | undefined;
      if (!image) throw new SourceWriteError(409, "no_pre_image", "The permission's pre-image was not kept");
      return (await writer.restorePermission(fileOf(step), image)).id;
    }
    case "downgrade_permission": {
      const role = formerRoleOf(pre);
      if (!role || r.kind !== "permission")
        throw new SourceWriteError(409, "no_pre_image", "The permission's former role was not kept");
      await writer.updatePermissionRole(fileOf(step), r.permissionId, role);
      return null;
    }
    case "transfer_ownership":
      if (r.kind !== "file_owner") throw new Error(`step ${step.id} does not name a file's owner`);
      await writer.transferOwnership(fileOf(step), r.ownerEmail);
      return null;
    case "revoke_oauth_grant": {
      const image = pre?.source as TGrantImage | null | undefined;
      if (!writer.restoreGrant || !image)
        throw new SourceWriteError(400, "unsupported", "This source cannot grant a revoked app access back");
      return (await writer.restoreGrant(image)).id;
    }
  }
}

async function undoStep(deps: TRemediationDeps, rem: TRemediationRow, step: TStepRow, writer: TSourceWriter) {
  const { db } = deps;
  const pre = preImageOf(step) as TUndoPreImage | null;
  const resumed = !!pre?.undoStartedAt;
  const marked: TUndoPreImage = { ...(pre ?? { source: null }), undoStartedAt: new Date().toISOString() };
  await db
    .update(remediationSteps)
    .set({ preImage: marked as unknown as Record<string, unknown> })
    .where(eq(remediationSteps.id, step.id));
  let restoredId: string | null = null;
  let done = false;
  try {
    if (resumed && pre) {
      restoredId = await throttled(deps, step.connectorId, () => restoredAlready(writer, step, pre));
      done = restoredId !== null;
    }
    if (!done) restoredId = await throttled(deps, step.connectorId, () => restore(writer, step, pre));
  } catch (err) {
    if (!(err instanceof SourceWriteError) || err.status >= 500) throw err;
    // Refused: the step stays applied, with the source's words.
    await db.transaction(async (tx) => {
      await tx
        .update(remediationSteps)
        .set({
          error: stepErrorOf(err),
          preImage: { ...marked, undoError: stepErrorOf(err) } as unknown as Record<string, unknown>,
        })
        .where(eq(remediationSteps.id, step.id));
    });
    return;
  }
  await db.transaction(async (tx) => {
    await lockFindings(tx, rem.orgId);
    const [updated] = await tx
      .update(remediationSteps)
      .set({ status: "REVERTED", revertedAt: new Date(), restoredId })
      .where(and(eq(remediationSteps.id, step.id), eq(remediationSteps.status, "APPLIED")))
      .returning();
    if (!updated) return;
    await storeAfterUndo(tx, rem.orgId, updated, restoredId);
    await reopenFindings(tx, { orgId: rem.orgId, remediationId: rem.id, step: updated });
    await refreshStepCounts(tx, rem.id);
  });
}

async function finishUndo(deps: TRemediationDeps, remediationId: string): Promise<TRemediationStatus> {
  const result = await deps.db.transaction(async (tx) => {
    const rem = await lockRemediation(tx, remediationId);
    if (!rem || rem.status !== "REVERTING") return { status: rem?.status ?? "REVERTED", deliveries: [] };
    const counts = await refreshStepCounts(tx, rem.id);
    // Nothing put back is not REVERTED (issue 28): the remediation is as it was before the undo.
    if ((counts.REVERTED ?? 0) === 0) return undoneNothing(tx, rem, counts);
    const notReverted = counts.APPLIED ?? 0;
    await tx
      .update(remediations)
      .set({ status: "REVERTED", revertedAt: new Date() })
      .where(eq(remediations.id, rem.id));
    await audit(
      tx,
      { orgId: rem.orgId, actor: SYSTEM_ACTOR },
      { action: "REMEDIATION_REVERTED", target: rem.id, metadata: { counts, notReverted } },
    );
    const deliveries = await recordRemediationEvent(tx, {
      orgId: rem.orgId,
      type: "remediation.reverted",
      data: {
        remediationId: rem.id,
        status: "REVERTED",
        reverted: counts.REVERTED ?? 0,
        notReverted,
        link: remediationLink(deps.runtime.publicUrl, rem.id),
      },
    });
    return { status: "REVERTED" as const, deliveries };
  });
  await dispatchDeliveries(deps.jobs, result.deliveries);
  return result.status;
}

/**
 * The undo job: each reversible applied step, last first, restored from its pre-image (a step
 * whose restore started in a dead worker's try is re-read first). Irreversible steps stay
 * APPLIED; a restore the source refuses leaves its step APPLIED with the source's error. Findings
 * the reverted steps had resolved re-open, and the store follows.
 */
export async function runUndoJob(
  deps: TRemediationDeps,
  remediationId: string,
  ctx: { attempt: number; attempts?: number } = { attempt: 1 },
): Promise<TRemediationStatus> {
  const [rem] = await deps.db.select().from(remediations).where(eq(remediations.id, remediationId));
  if (!rem) throw new Error(`remediation ${remediationId} not found`);
  if (rem.status !== "REVERTING") return rem.status;
  const steps = (
    await deps.db
      .select()
      .from(remediationSteps)
      .where(
        and(
          eq(remediationSteps.remediationId, rem.id),
          eq(remediationSteps.status, "APPLIED"),
          eq(remediationSteps.reversible, true),
        ),
      )
      .orderBy(desc(remediationSteps.seq))
  ).filter((s) => !(preImageOf(s) as TUndoPreImage | null)?.undoError);
  try {
    const writer = await writersOf(deps, steps);
    for (const step of steps) await undoStep(deps, rem, step, writer(step.connectorId));
  } catch (err) {
    if (ctx.attempt < (ctx.attempts ?? REMEDIATION_ATTEMPTS)) throw err;
    deps.log.warn({ remediationId, err: stepErrorOf(err).message }, "remediation undo gave up");
  }
  return finishUndo(deps, rem.id);
}

export { requestUndo } from "./undo-request";
