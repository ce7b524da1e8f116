import { and, asc, count, eq } from "drizzle-orm";
import {
  connectors,
  findings,
  remediations,
  remediationSteps,
  type Db,
  type TRemediationStatus,
} from "@posture/db";
import { AppError, SYSTEM_ACTOR, type TActor, type TJobQueue, audit } from "@posture/platform";
import { dispatchDeliveries } from "@posture/webhooks";
import { APPLY_BATCH, applySteps } from "./apply-steps";
import { DEFAULT_LEASE, LeaseLostError, takeLease, type TLease } from "./lease";
import { recordRemediationEvent } from "./record";
import { remediationLink } from "./plan";
import { stepErrorOf, writersOf, type TRemediationDeps, type TRemediationRow } from "./source-calls";
import { refreshStepCounts, lockRemediation } from "./store-sync";

// What the remediation's jobs and callers import from here: the source calls, and the batch size.
export {
  rateOf,
  stepErrorOf,
  THROTTLE_RETRIES,
  throttled,
  writersOf,
  yieldToEventLoop,
  type TRemediationDeps,
  type TSourceOf,
  type TStepError,
} from "./source-calls";
export { APPLY_BATCH } from "./apply-steps";

export const REMEDIATION_APPLY_JOB = "remediation.apply";
export const REMEDIATION_UNDO_JOB = "remediation.undo";
export const REMEDIATION_SWEEP_JOB = "remediation.sweep";
/** Tries of one apply or undo job (the first included): a source down for a while is ridden out. */
export const REMEDIATION_ATTEMPTS = 5;

/** Undo is offered this long after the apply finished. */
export const UNDO_WINDOW_MS = 30 * 86_400_000;

export const applyJobId = (id: string) => `remediation-apply-${id}`;
export const undoJobId = (id: string) => `remediation-undo-${id}`;

/** Every step not yet decided fails with the error that ended the last try. */
async function failUndecided(deps: TRemediationDeps, lease: TLease, rem: TRemediationRow, err: unknown) {
  const error = stepErrorOf(err);
  await deps.db.transaction(async (tx) => {
    await tx
      .update(remediationSteps)
      .set({ status: "FAILED", error })
      .where(
        and(eq(remediationSteps.remediationId, rem.id), eq(remediationSteps.status, "PENDING"), lease.held()),
      );
    await refreshStepCounts(tx, rem.id);
  });
}

/** APPLIED (every step applied or already gone), PARTIAL (some failed) or FAILED (none done). */
export function finalStatus(counts: Record<string, number>): TRemediationStatus {
  const done = (counts.APPLIED ?? 0) + (counts.ALREADY_GONE ?? 0);
  if ((counts.FAILED ?? 0) === 0) return "APPLIED";
  return done > 0 ? "PARTIAL" : "FAILED";
}

async function finishApply(deps: TRemediationDeps, lease: TLease): Promise<TRemediationStatus> {
  const result = await deps.db.transaction(async (tx) => {
    const rem = await lockRemediation(tx, lease.remediationId);
    if (!rem || rem.status !== "APPLYING") return { status: rem?.status ?? "FAILED", deliveries: [] };
    // Taken over meanwhile: the new holder finishes it.
    if (rem.leaseToken !== lease.token) return { status: rem.status, deliveries: [] };
    const counts = await refreshStepCounts(tx, rem.id);
    if ((counts.PENDING ?? 0) > 0) return { status: rem.status, deliveries: [] };
    const status = finalStatus(counts);
    const now = new Date();
    await tx
      .update(remediations)
      .set({ status, finishedAt: now, undoUntil: new Date(now.getTime() + UNDO_WINDOW_MS) })
      .where(eq(remediations.id, rem.id));
    await audit(
      tx,
      { orgId: rem.orgId, actor: SYSTEM_ACTOR },
      {
        action: status === "FAILED" ? "REMEDIATION_FAILED" : "REMEDIATION_APPLIED",
        target: rem.id,
        metadata: { status, counts },
      },
    );
    const link = remediationLink(deps.runtime.publicUrl, rem.id);
    const stepCount = Object.values(counts).reduce((a, b) => a + b, 0);
    let deliveries: string[];
    if (status === "FAILED") {
      const [first] = await tx
        .select({ error: remediationSteps.error })
        .from(remediationSteps)
        .where(and(eq(remediationSteps.remediationId, rem.id), eq(remediationSteps.status, "FAILED")))
        .orderBy(asc(remediationSteps.seq))
        .limit(1);
      deliveries = await recordRemediationEvent(tx, {
        orgId: rem.orgId,
        type: "remediation.failed",
        data: {
          remediationId: rem.id,
          status: "FAILED",
          stepCount,
          failed: counts.FAILED ?? 0,
          error: first?.error ? `${first.error.code}: ${first.error.message}` : "no step could be applied",
          link,
        },
      });
    } else {
      const [resolved] = await tx
        .select({ n: count() })
        .from(findings)
        .where(and(eq(findings.orgId, rem.orgId), eq(findings.resolvedBy, rem.id)));
      deliveries = await recordRemediationEvent(tx, {
        orgId: rem.orgId,
        type: "remediation.applied",
        data: {
          remediationId: rem.id,
          status: status === "PARTIAL" ? "PARTIAL" : "APPLIED",
          stepCount,
          applied: counts.APPLIED ?? 0,
          alreadyGone: counts.ALREADY_GONE ?? 0,
          failed: counts.FAILED ?? 0,
          resolvedFindings: resolved?.n ?? 0,
          link,
        },
      });
    }
    return { status, deliveries };
  });
  await dispatchDeliveries(deps.jobs, result.deliveries);
  return result.status;
}

/**
 * Runs `work` under the remediation's lease (services/lease.ts), taken when the remediation is in
 * `status`. Another worker holding it: nothing is done (that worker carries the remediation on;
 * if it died, the sweep queues the job again once its lease ran out). The lease is freed after.
 */
export async function underLease(
  deps: TRemediationDeps,
  remediationId: string,
  status: TRemediationStatus,
  work: (rem: TRemediationRow, lease: TLease) => Promise<TRemediationStatus>,
): Promise<TRemediationStatus> {
  const [rem] = await deps.db.select().from(remediations).where(eq(remediations.id, remediationId));
  if (!rem) throw new Error(`remediation ${remediationId} not found`);
  if (rem.status !== status) return rem.status;
  const lease = await takeLease(deps.db, remediationId, status, deps.lease ?? DEFAULT_LEASE);
  if (!lease) {
    deps.log.info({ remediationId, status }, "remediation leased by another worker: left to it");
    return rem.status;
  }
  try {
    return await work(rem, lease);
  } finally {
    await lease.release();
  }
}

/**
 * The apply job: every undecided step in order, one change each, then the remediation's status.
 * One worker at a time, under the remediation's lease: each step's claim and outcome is written
 * under its fencing token, so each step is written at most once at the source. Resumable:
 * decided steps are skipped, a step started by a dead worker is re-read at the source before
 * anything is sent. A source away or refusing the credentials fails the try (the queue retries;
 * steps done stay done); after the last try the undecided steps fail with it. A lost lease ends
 * the try at once, and never fails a step: the worker that has the lease decides them.
 */
export async function runApplyJob(
  deps: TRemediationDeps,
  remediationId: string,
  ctx: { attempt: number; attempts?: number } = { attempt: 1 },
): Promise<TRemediationStatus> {
  return underLease(deps, remediationId, "APPLYING", async (rem, lease) => {
    const steps = await deps.db
      .select()
      .from(remediationSteps)
      .where(and(eq(remediationSteps.remediationId, rem.id), eq(remediationSteps.status, "PENDING")))
      .orderBy(asc(remediationSteps.seq));
    const last = ctx.attempt >= (ctx.attempts ?? REMEDIATION_ATTEMPTS);
    // The last try records each step on its own: what it leaves undecided is failed below, and a
    // batch whose transaction failed would leave up to a batch of changed steps to fail.
    const size = last ? 1 : APPLY_BATCH;
    try {
      const writer = await writersOf(deps, steps);
      for (let at = 0; at < steps.length; at += size)
        await applySteps(deps, lease, rem, steps.slice(at, at + size), writer);
    } catch (err) {
      if (err instanceof LeaseLostError) {
        deps.log.warn({ remediationId, err: err.message }, "remediation apply stopped: lease lost");
        if (!last) throw err;
        return rem.status;
      }
      if (!last) throw err;
      deps.log.warn({ remediationId, err: stepErrorOf(err).message }, "remediation apply gave up");
      await failUndecided(deps, lease, rem, err);
    }
    return finishApply(deps, lease);
  });
}

/** POST /remediations/{id}/apply: APPROVED → APPLYING, audited, and the job queued. */
export async function requestApply(
  db: Db,
  input: { orgId: string; actor: TActor; id: string; applyKey?: string | null },
  deps: { jobs: TJobQueue },
): Promise<void> {
  await db.transaction(async (tx) => {
    const rem = await lockRemediation(tx, input.id, input.orgId);
    if (!rem) throw new AppError("not_found", "Remediation not found");
    if (rem.dryRun)
      throw new AppError(
        "invalid_transition",
        "A dry run only records what it would have done: it is never applied",
      );
    if (rem.status !== "APPROVED")
      throw new AppError(
        "invalid_transition",
        `Only an APPROVED remediation can be applied; this one is ${rem.status}`,
      );
    const readOnly = await tx
      .selectDistinct({ id: connectors.id, name: connectors.displayName })
      .from(remediationSteps)
      .innerJoin(connectors, eq(connectors.id, remediationSteps.connectorId))
      .where(and(eq(remediationSteps.remediationId, rem.id), eq(connectors.writeAccess, false)));
    if (readOnly.length > 0)
      throw new AppError(
        "conflict",
        `Write access is off for ${readOnly.map((c) => c.name).join(", ")}: turn it on (PATCH /api/connectors/{id} {writeAccess: true}; it needs the write scopes of docs/operations.md) before applying`,
      );
    await tx
      .update(remediations)
      .set({ status: "APPLYING", applyStartedAt: new Date(), applyKey: input.applyKey ?? null })
      .where(eq(remediations.id, rem.id));
    await audit(tx, input, {
      action: "REMEDIATION_APPLY_STARTED",
      target: rem.id,
      metadata: { steps: rem.stepTotal, ...(input.applyKey ? { idempotencyKey: input.applyKey } : {}) },
    });
  });
  await deps.jobs.enqueue(
    REMEDIATION_APPLY_JOB,
    { remediationId: input.id },
    { jobId: applyJobId(input.id) },
  );
}
