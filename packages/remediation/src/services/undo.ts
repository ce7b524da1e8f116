import { and, desc, eq } from "drizzle-orm";
import {
  PERMISSION_ROLE_RANK,
  SourceWriteError,
  type TDeployKeyImage,
  type TGrantImage,
  type TPermissionImage,
  type TPermissionRole,
  type TSourceWriter,
} from "@posture/connectors";
import { remediations, remediationSteps, type TRemediationStatus } from "@posture/db";
import { SYSTEM_ACTOR, audit } from "@posture/platform";
import { dispatchDeliveries } from "@posture/webhooks";
import {
  REMEDIATION_ATTEMPTS,
  stepErrorOf,
  throttled,
  underLease,
  writersOf,
  yieldToEventLoop,
  type TRemediationDeps,
  type TSourceOf,
  type TStepError,
} from "./apply";
import { LeaseLostError, type TLease } from "./lease";
import { recordRemediationEvent } from "./record";
import { undoneNothing } from "./undo-request";
import { remediationLink } from "./plan";
import {
  fileOf,
  lockFindings,
  noDeployKeys,
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

/** The role a downgraded permission had: what undo puts back. */
const formerRoleOf = (pre: TPreImage | null): TPermissionRole | null =>
  ((pre?.source as TPermissionImage | null)?.role ??
    (pre?.store as { role?: string } | null)?.role ??
    null) as TPermissionRole | null;

/**
 * A restore started by an earlier try and not recorded: whether the source already has it back
 * (Google gives a re-created permission its former id; a grant keeps its id; a downgraded
 * permission has its former role, or a higher one, again). Returns the restored id (null for a
 * role), or undefined when it is not back and the restore is to be sent.
 */
async function restoredAlready(
  writer: TSourceWriter,
  step: TStepRow,
  pre: TPreImage,
): Promise<{ id: string | null } | undefined> {
  switch (step.action) {
    case "remove_public_link":
    case "remove_external_user":
    case "remove_external_domain":
    case "remove_org_wide_link":
    case "remove_everyone_grant":
    case "remove_group_grant": {
      const image = pre.source as TPermissionImage | null;
      if (!image) return undefined;
      return (await writer.readPermission(fileOf(step), image.id)) ? { id: image.id } : undefined;
    }
    case "revoke_oauth_grant": {
      const image = pre.source as TGrantImage | null;
      const r = step.resource;
      if (!image || r.kind !== "grant") return undefined;
      return (await writer.readGrant({ id: image.id, clientId: r.clientId, userEmail: r.userEmail }))
        ? { id: image.id }
        : undefined;
    }
    case "downgrade_permission": {
      const role = formerRoleOf(pre);
      const r = step.resource;
      if (!role || r.kind !== "permission") return undefined;
      const now = await writer.readPermission(fileOf(step), r.permissionId);
      // Compared by rank: back at its former role (or above it) is restored; nothing is lowered.
      return now && PERMISSION_ROLE_RANK[now.role] >= PERMISSION_ROLE_RANK[role] ? { id: null } : undefined;
    }
    case "transfer_ownership":
      // The writer reads the owner first: a transfer back already made is not sent again.
      return undefined;
    case "restrict_org_wide_link": {
      const image = pre.source as TPermissionImage | null;
      if (!image) return undefined;
      const now = await writer.readPermission(fileOf(step), image.id);
      return now?.link?.discoverable === true ? { id: image.id } : undefined;
    }
    case "delete_deploy_key":
      // Added back under a new id: the writer finds it by its public key before adding it.
      return undefined;
  }
}

/** The one change that puts a step back; returns the id the source gave a re-created permission or grant. */
async function restore(writer: TSourceWriter, step: TStepRow, pre: TPreImage | null): Promise<string | null> {
  const r = step.resource;
  switch (step.action) {
    case "remove_public_link":
    case "remove_external_user":
    case "remove_external_domain":
    case "remove_org_wide_link":
    case "remove_everyone_grant":
    case "remove_group_grant": {
      const image = pre?.source as TPermissionImage | null | undefined;
      if (!image) throw new SourceWriteError(409, "no_pre_image", "The permission's pre-image was not kept");
      return (await writer.restorePermission(fileOf(step), image)).id;
    }
    case "downgrade_permission": {
      const role = formerRoleOf(pre);
      if (!role || r.kind !== "permission")
        throw new SourceWriteError(409, "no_pre_image", "The permission's former role was not kept");
      // Undo sets the former role back: the one change that may raise a role.
      await writer.updatePermissionRole(fileOf(step), r.permissionId, role, "restore");
      return null;
    }
    case "transfer_ownership":
      if (r.kind !== "file_owner") throw new Error(`step ${step.id} does not name a file's owner`);
      await writer.transferOwnership(fileOf(step), r.ownerEmail);
      return null;
    case "restrict_org_wide_link": {
      // Searchable again: the link re-shared from its pre-image (allowFileDiscovery: true).
      const image = pre?.source as TPermissionImage | null | undefined;
      if (!image) throw new SourceWriteError(409, "no_pre_image", "The link's pre-image was not kept");
      return (await writer.restorePermission(fileOf(step), image)).id;
    }
    case "revoke_oauth_grant": {
      const image = pre?.source as TGrantImage | null | undefined;
      if (!writer.restoreGrant || !image)
        throw new SourceWriteError(400, "unsupported", "This source cannot grant a revoked app access back");
      return (await writer.restoreGrant(image)).id;
    }
    case "delete_deploy_key": {
      const image = pre?.source as TDeployKeyImage | null | undefined;
      if (!image) throw new SourceWriteError(409, "no_pre_image", "The deploy key's pre-image was not kept");
      if (!writer.restoreDeployKey) throw noDeployKeys();
      return (await writer.restoreDeployKey(fileOf(step), image)).id;
    }
  }
}

async function undoStep(
  deps: TRemediationDeps,
  lease: TLease,
  rem: TRemediationRow,
  step: TStepRow,
  source: TSourceOf,
) {
  const { db } = deps;
  const { writer } = source;
  const pre = preImageOf(step) as TUndoPreImage | null;
  const resumed = !!pre?.undoStartedAt;
  const marked: TUndoPreImage = { ...(pre ?? { source: null }), undoStartedAt: new Date().toISOString() };
  // The claim only the lease's holder can win (a lost one: someone else has the undo).
  const claimed = await db
    .update(remediationSteps)
    .set({ preImage: marked as unknown as Record<string, unknown> })
    .where(and(eq(remediationSteps.id, step.id), eq(remediationSteps.status, "APPLIED"), lease.live()))
    .returning({ id: remediationSteps.id });
  if (claimed.length === 0) {
    if (await lease.stillHeld()) return; // reverted meanwhile by the worker this one took over from
    throw new LeaseLostError(rem.id, "undo claim refused");
  }
  let restoredId: string | null = null;
  try {
    const back =
      resumed && pre
        ? await throttled(deps, lease, source, () => restoredAlready(writer, step, pre))
        : undefined;
    restoredId = back ? back.id : await throttled(deps, lease, source, () => restore(writer, step, pre));
  } catch (err) {
    if (!(err instanceof SourceWriteError) || err.status >= 500) throw err;
    // Refused: the step stays applied, with the source's words.
    await db.transaction(async (tx) => {
      const [kept] = await tx
        .update(remediationSteps)
        .set({
          error: stepErrorOf(err),
          preImage: { ...marked, undoError: stepErrorOf(err) } as unknown as Record<string, unknown>,
        })
        .where(and(eq(remediationSteps.id, step.id), lease.held()))
        .returning({ id: remediationSteps.id });
      if (!kept) await lease.assertHeldIn(tx);
    });
    return;
  }
  await db.transaction(async (tx) => {
    await lockFindings(tx, rem.orgId);
    const [updated] = await tx
      .update(remediationSteps)
      .set({ status: "REVERTED", revertedAt: new Date(), restoredId })
      .where(and(eq(remediationSteps.id, step.id), eq(remediationSteps.status, "APPLIED"), lease.held()))
      .returning();
    if (!updated) {
      await lease.assertHeldIn(tx);
      return;
    }
    await storeAfterUndo(tx, { orgId: rem.orgId, step: updated, restoredId });
    await reopenFindings(tx, { orgId: rem.orgId, remediationId: rem.id, step: updated });
    await refreshStepCounts(tx, rem.id);
  });
}

async function finishUndo(deps: TRemediationDeps, lease: TLease): Promise<TRemediationStatus> {
  const result = await deps.db.transaction(async (tx) => {
    const rem = await lockRemediation(tx, lease.remediationId);
    if (!rem || rem.status !== "REVERTING") return { status: rem?.status ?? "REVERTED", deliveries: [] };
    // Taken over meanwhile: the new holder finishes it.
    if (rem.leaseToken !== lease.token) return { status: rem.status, deliveries: [] };
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
 * whose restore started in a dead worker's try is re-read first), one worker at a time under the
 * remediation's lease as the apply job is, so no step is restored twice. Irreversible steps stay
 * APPLIED; a restore the source refuses leaves its step APPLIED with the source's error. Findings
 * the reverted steps had resolved re-open, and the store follows.
 */
export async function runUndoJob(
  deps: TRemediationDeps,
  remediationId: string,
  ctx: { attempt: number; attempts?: number } = { attempt: 1 },
): Promise<TRemediationStatus> {
  return underLease(deps, remediationId, "REVERTING", async (rem, lease) => {
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
      for (const step of steps) {
        await undoStep(deps, lease, rem, step, writer(step.connectorId));
        await yieldToEventLoop();
      }
    } catch (err) {
      const last = ctx.attempt >= (ctx.attempts ?? REMEDIATION_ATTEMPTS);
      if (err instanceof LeaseLostError) {
        deps.log.warn({ remediationId, err: err.message }, "remediation undo stopped: lease lost");
        if (!last) throw err;
        return rem.status;
      }
      if (!last) throw err;
      deps.log.warn({ remediationId, err: stepErrorOf(err).message }, "remediation undo gave up");
    }
    return finishUndo(deps, lease);
  });
}

export { requestUndo } from "./undo-request";
