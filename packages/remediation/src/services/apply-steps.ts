// One batch of an apply job's steps: each step at the source, then their outcomes in one transaction.
import { and, eq, inArray, sql } from "drizzle-orm";
import {
  PERMISSION_ROLE_RANK,
  SourceWriteError,
  type TPermissionRole,
  type TSourceWriter,
  type TWriteOutcome,
} from "@posture/connectors";
import { remediationSteps } from "@posture/db";
import { dispatchDeliveries } from "@posture/webhooks";
import { LeaseLostError, type TLease } from "./lease";
import {
  retryable,
  stepErrorOf,
  throttled,
  yieldToEventLoop,
  type TRemediationDeps,
  type TRemediationRow,
  type TSourceOf,
  type TStepError,
} from "./source-calls";
import {
  fileOf,
  grantOf,
  keyIdOf,
  lockFindings,
  newOwnerOf,
  noDeployKeys,
  permissionIdOf,
  preImageOf,
  refreshStepCounts,
  resolveFindings,
  storeAfterApply,
  targetRoleOf,
  type TPreImage,
  type TStepRow,
} from "./store-sync";

/**
 * Steps whose outcomes are recorded together, in one transaction: small enough that a request
 * waits at most one batch's transaction on embedded PGlite.
 */
export const APPLY_BATCH = 50;

type TOutcome = { status: "APPLIED" | "ALREADY_GONE" } | { status: "FAILED"; error: TStepError };

/** Whether a step reads its pre-image before acting (a transfer is undone by transferring back). */
const readsPreImage = (step: TStepRow) => step.reversible && step.action !== "transfer_ownership";

/** The permission, grant or deploy key as the source has it now (null: gone). */
async function readAtSource(writer: TSourceWriter, step: TStepRow) {
  if (step.action === "delete_deploy_key") {
    if (!writer.readDeployKey) throw noDeployKeys();
    return writer.readDeployKey(fileOf(step), keyIdOf(step));
  }
  return step.action === "revoke_oauth_grant"
    ? writer.readGrant(grantOf(step))
    : writer.readPermission(fileOf(step), permissionIdOf(step));
}

/** The one change a step makes. */
function act(writer: TSourceWriter, step: TStepRow): Promise<TWriteOutcome> {
  switch (step.action) {
    case "remove_public_link":
    case "remove_external_user":
    case "remove_external_domain":
    case "remove_org_wide_link":
    case "remove_everyone_grant":
    case "remove_group_grant":
      return writer.deletePermission(fileOf(step), permissionIdOf(step));
    case "downgrade_permission":
      // Lowered only: a permission already at or below the role (by rank) is left as it is.
      return writer.updatePermissionRole(
        fileOf(step),
        permissionIdOf(step),
        targetRoleOf(step) as TPermissionRole,
        "lower",
      );
    case "revoke_oauth_grant":
      return writer.revokeGrant(grantOf(step));
    case "transfer_ownership":
      return writer.transferOwnership(fileOf(step), newOwnerOf(step));
    case "restrict_org_wide_link":
      if (!writer.restrictLink)
        return Promise.reject(
          new SourceWriteError(400, "unsupported", "This source cannot make a link link-only"),
        );
      return writer.restrictLink(fileOf(step), permissionIdOf(step));
    case "delete_deploy_key":
      if (!writer.deleteDeployKey) return Promise.reject(noDeployKeys());
      return writer.deleteDeployKey(fileOf(step), keyIdOf(step));
  }
}

/**
 * A step started by an earlier try that recorded no outcome (its worker died mid-call): what the
 * source shows now. `done`: the change is there; `gone`: it was never ours to make; `pending`: act.
 */
async function recheck(writer: TSourceWriter, step: TStepRow, pre: TPreImage | null) {
  if (step.action === "transfer_ownership") return "pending" as const;
  const now = await readAtSource(writer, step);
  // A reversible step saves its pre-image before acting: without one, this try never acted.
  const ours = !readsPreImage(step) || !!pre?.source;
  if (now === null) return ours ? ("done" as const) : ("gone" as const);
  if (step.action === "restrict_org_wide_link") {
    // Link-only already: made by the try that took the pre-image (ours), else never ours to make.
    if ((now as { link?: { discoverable?: boolean } }).link?.discoverable !== true)
      return ours ? "done" : "gone";
  }
  if (step.action === "downgrade_permission") {
    const role = (now as { role?: TPermissionRole }).role;
    const target = targetRoleOf(step) as TPermissionRole;
    if (role && PERMISSION_ROLE_RANK[role] <= PERMISSION_ROLE_RANK[target]) return ours ? "done" : "gone";
  }
  return "pending" as const;
}

/** A decided step: its outcome and the pre-image it was decided with. */
type TDecided = { outcome: TOutcome; pre: TPreImage | null };

/**
 * One step at the source: claim, (re-read), pre-image, the change. Returns its outcome, for the
 * batch's transaction to record; undefined when another worker decided it meanwhile.
 */
async function decideStep(
  deps: TRemediationDeps,
  lease: TLease,
  rem: TRemediationRow,
  step: TStepRow,
  source: TSourceOf,
): Promise<TDecided | undefined> {
  const { db } = deps;
  const { writer } = source;
  const resumed = step.startedAt !== null;
  // The claim only the lease's holder can win: a lost claim means someone else has it.
  const claimed = await db
    .update(remediationSteps)
    .set({ startedAt: new Date(), attempts: sql`${remediationSteps.attempts} + 1` })
    .where(and(eq(remediationSteps.id, step.id), eq(remediationSteps.status, "PENDING"), lease.live()))
    .returning({ id: remediationSteps.id });
  if (claimed.length === 0) {
    if (await lease.stillHeld()) return undefined; // decided meanwhile by the worker this one took over from
    throw new LeaseLostError(rem.id, "step claim refused");
  }
  let pre = preImageOf(step);
  try {
    if (resumed) {
      const seen = await throttled(deps, lease, source, () => recheck(writer, step, pre));
      if (seen === "done") return { outcome: { status: "APPLIED" }, pre };
      if (seen === "gone") return { outcome: { status: "ALREADY_GONE" }, pre };
    }
    if (readsPreImage(step) && !pre?.source) {
      const image = await throttled(deps, lease, source, () => readAtSource(writer, step));
      if (image === null) return { outcome: { status: "ALREADY_GONE" }, pre };
      // Kept before the change is made: whatever happens next, undo has what to restore.
      pre = { source: image };
      const kept = await db
        .update(remediationSteps)
        .set({ preImage: pre as unknown as Record<string, unknown> })
        .where(and(eq(remediationSteps.id, step.id), eq(remediationSteps.status, "PENDING"), lease.held()))
        .returning({ id: remediationSteps.id });
      if (kept.length === 0) throw new LeaseLostError(rem.id, "pre-image refused");
    }
    const made = await throttled(deps, lease, source, () => act(writer, step));
    // Found already made on a step an earlier try started (and, reading pre-images, took the
    // pre-image of): that try's own change, which undo must put back.
    const ours = resumed && (!readsPreImage(step) || !!pre?.source);
    return { outcome: { status: made === "applied" || ours ? "APPLIED" : "ALREADY_GONE" }, pre };
  } catch (err) {
    if (err instanceof LeaseLostError || retryable(err)) throw err;
    return { outcome: { status: "FAILED", error: stepErrorOf(err) }, pre };
  }
}

/**
 * A batch of steps, in order: each one at the source (decideStep), then their outcomes with what
 * they cause in one transaction. A worker that dies before it leaves them started: the next try
 * re-reads each at the source before sending anything (recheck), as for the step it died on.
 */
export async function applySteps(
  deps: TRemediationDeps,
  lease: TLease,
  rem: TRemediationRow,
  batch: readonly TStepRow[],
  sourceOf: (connectorId: string) => TSourceOf,
) {
  const decided = new Map<string, TDecided>();
  try {
    for (const step of batch) {
      const outcome = await decideStep(deps, lease, rem, step, sourceOf(step.connectorId));
      if (outcome) decided.set(step.id, outcome);
      await yieldToEventLoop();
    }
  } catch (err) {
    // What was decided before the try ended is recorded (steps done stay done), under the token
    // as always; if that fails too, the next try re-reads those steps at the source.
    await recordOutcomes(deps, lease, rem, batch, decided).catch((recordErr: unknown) =>
      deps.log.warn(
        { remediationId: rem.id, err: stepErrorOf(recordErr).message },
        "remediation apply: outcomes of the try's last batch not recorded",
      ),
    );
    throw err;
  }
  await recordOutcomes(deps, lease, rem, batch, decided);
}

/**
 * The steps' outcomes, the store and findings they change and the counts, in one transaction:
 * one write per outcome (a failure's per step, with its error), the store's files once.
 */
async function recordOutcomes(
  deps: TRemediationDeps,
  lease: TLease,
  rem: TRemediationRow,
  steps: readonly TStepRow[],
  decided: ReadonlyMap<string, TDecided>,
) {
  if (decided.size === 0) return;
  const now = new Date();
  const deliveries = await deps.db.transaction(async (tx) => {
    await lockFindings(tx, rem.orgId);
    const updated: TStepRow[] = [];
    const pending = (ids: string[]) =>
      and(inArray(remediationSteps.id, ids), eq(remediationSteps.status, "PENDING"), lease.held());
    for (const status of ["APPLIED", "ALREADY_GONE"] as const) {
      const ids = steps.filter((s) => decided.get(s.id)?.outcome.status === status).map((s) => s.id);
      if (ids.length === 0) continue;
      updated.push(
        ...(await tx
          .update(remediationSteps)
          .set({ status, appliedAt: now, error: null })
          .where(pending(ids))
          .returning()),
      );
    }
    for (const step of steps) {
      const outcome = decided.get(step.id)?.outcome;
      if (outcome?.status !== "FAILED") continue;
      updated.push(
        ...(await tx
          .update(remediationSteps)
          .set({ status: "FAILED", appliedAt: null, error: outcome.error })
          .where(pending([step.id]))
          .returning()),
      );
    }
    // A step not written was decided meanwhile, unless the lease is gone (then this throws).
    if (updated.length < decided.size) await lease.assertHeldIn(tx);
    if (updated.length === 0) return [];
    const done = updated.filter((s) => s.status !== "FAILED").sort((a, b) => a.seq - b.seq);
    // What the source no longer has leaves the store (a downgrade found gone changes nothing).
    const changing = done.filter((s) => s.status === "APPLIED" || s.action !== "downgrade_permission");
    const stored = await storeAfterApply(tx, { orgId: rem.orgId, steps: changing });
    const images = changing.flatMap((step, i) => {
      const store = stored[i] ?? null;
      const pre = decided.get(step.id)?.pre ?? null;
      return store || pre
        ? [sql`(${step.id}, ${JSON.stringify({ ...(pre ?? { source: null }), store })}::jsonb)`]
        : [];
    });
    if (images.length > 0)
      await tx.execute(
        sql`UPDATE remediation_steps s SET pre_image = v.pre FROM (VALUES ${sql.join(images, sql`, `)}) AS v(id, pre)
            WHERE s.id = v.id`,
      );
    const ids = await resolveFindings(tx, {
      orgId: rem.orgId,
      remediationId: rem.id,
      steps: done,
      publicUrl: deps.runtime.publicUrl,
      now,
    });
    await refreshStepCounts(tx, rem.id);
    return ids;
  });
  await dispatchDeliveries(deps.jobs, deliveries);
}
