import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import {
  PERMISSION_ROLE_RANK,
  SourceAuthError,
  SourceUnavailableError,
  SourceWriteError,
  type TPermissionRole,
  type TSourceWriter,
  type TWriteFile,
  type TWriteOutcome,
} from "@posture/connectors";
import {
  connectors,
  findings,
  remediations,
  remediationSteps,
  type Db,
  type TRemediationStatus,
} from "@posture/db";
import {
  AppError,
  SYSTEM_ACTOR,
  type TActor,
  type TJobQueue,
  type TLogger,
  type TRuntime,
  audit,
} from "@posture/platform";
import { dispatchDeliveries } from "@posture/webhooks";
import { DEFAULT_LEASE, LeaseLostError, takeLease, type TLease, type TLeaseOptions } from "./lease";
import { createRateLimiter, rateFromEnv, sleep, type TRateLimiter } from "./rate";
import { recordRemediationEvent } from "./record";
import { remediationLink } from "./plan";
import {
  lockFindings,
  newOwnerOf,
  preImageOf,
  refreshStepCounts,
  resolveFindings,
  storeAfterApply,
  targetRoleOf,
  type TPreImage,
  type TStepRow,
  lockRemediation,
} from "./store-sync";
import { writerFor as defaultWriterFor, type TConnectorRow, type TWriterFor } from "./writer";

export const REMEDIATION_APPLY_JOB = "remediation.apply";
export const REMEDIATION_UNDO_JOB = "remediation.undo";
export const REMEDIATION_SWEEP_JOB = "remediation.sweep";
/** Tries of one apply or undo job (the first included): a source down for a while is ridden out. */
export const REMEDIATION_ATTEMPTS = 5;
/** A source's 429 on one step is waited out this many times; then the step fails with it. */
export const THROTTLE_RETRIES = 5;
/** Undo is offered this long after the apply finished. */
export const UNDO_WINDOW_MS = 30 * 86_400_000;

export const applyJobId = (id: string) => `remediation-apply-${id}`;
export const undoJobId = (id: string) => `remediation-undo-${id}`;

export type TRemediationDeps = {
  db: Db;
  jobs: TJobQueue;
  runtime: TRuntime;
  log: TLogger;
  /** The writer of a connector's source (tests inject a fake). */
  writerFor?: TWriterFor;
  /** The per-connector bound on changes (a process-wide token bucket by default). */
  rate?: TRateLimiter;
  /** How a 429's Retry-After is waited (tests may shorten it). */
  wait?: (ms: number) => Promise<void>;
  /** The remediation lease's timings (services/lease.ts; tests shorten them). */
  lease?: TLeaseOptions;
};

type TRemediationRow = typeof remediations.$inferSelect;
export type TStepError = { status: number | null; code: string; message: string };
type TOutcome = { status: "APPLIED" | "ALREADY_GONE" } | { status: "FAILED"; error: TStepError };

let sharedRate: TRateLimiter | undefined;
/** The process's bucket per connector, shared by every job this process runs. */
export const rateOf = (deps: TRemediationDeps): TRateLimiter =>
  deps.rate ?? (sharedRate ??= createRateLimiter(rateFromEnv()));

/** The source's refusal as a step records it. */
export function stepErrorOf(err: unknown): TStepError {
  if (err instanceof SourceWriteError) return { status: err.status, code: err.code, message: err.message };
  if (err instanceof SourceAuthError) return { status: 401, code: "source_auth", message: err.message };
  if (err instanceof SourceUnavailableError)
    return { status: null, code: "source_unavailable", message: err.message };
  return { status: null, code: "internal", message: err instanceof Error ? err.message : String(err) };
}

/**
 * Failures a later try of the job may not meet: a server error, the source away, credentials
 * refused. A refusal (403, 400…) and a 429 outlasting its retries are the step's outcome.
 */
const retryable = (err: unknown) => !(err instanceof SourceWriteError) || err.status >= 500;

const fileOf = (step: TStepRow): TWriteFile => {
  const r = step.resource;
  if (r.kind === "grant") throw new Error(`step ${step.id} acts on a grant, not a file`);
  return { id: r.fileId, driveId: r.driveId, ownerEmail: r.ownerEmail };
};
const grantOf = (step: TStepRow) => {
  const r = step.resource;
  if (r.kind !== "grant") throw new Error(`step ${step.id} acts on a file, not a grant`);
  return { id: r.grantId, clientId: r.clientId, userEmail: r.userEmail };
};
const permissionIdOf = (step: TStepRow) => {
  const r = step.resource;
  if (r.kind !== "permission") throw new Error(`step ${step.id} does not name a permission`);
  return r.permissionId;
};

/** Whether a step reads its pre-image before acting (a transfer is undone by transferring back). */
const readsPreImage = (step: TStepRow) => step.reversible && step.action !== "transfer_ownership";

/** The permission or grant as the source has it now (null: gone). */
async function readAtSource(writer: TSourceWriter, step: TStepRow) {
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
  }
}

/**
 * A source call under the connector's rate, riding out the source's 429s (bounded), made only
 * while this worker holds the remediation's lease (checked before each try).
 */
export async function throttled<T>(
  deps: TRemediationDeps,
  lease: TLease,
  connectorId: string,
  call: () => Promise<T>,
): Promise<T> {
  const wait = deps.wait ?? sleep;
  for (let tries = 0; ; tries++) {
    await rateOf(deps).take(connectorId);
    lease.check();
    try {
      return await call();
    } catch (err) {
      if (err instanceof SourceWriteError && err.status === 429 && tries < THROTTLE_RETRIES) {
        await wait(err.retryAfterMs ?? 1_000 * 2 ** tries);
        continue;
      }
      throw err;
    }
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

/** One step: claim, (re-read), pre-image, the change, and the outcome with what it causes. */
async function applyStep(
  deps: TRemediationDeps,
  lease: TLease,
  rem: TRemediationRow,
  step: TStepRow,
  writer: TSourceWriter,
) {
  const { db } = deps;
  const resumed = step.startedAt !== null;
  // The claim only the lease's holder can win: a lost claim means someone else has it.
  const claimed = await db
    .update(remediationSteps)
    .set({ startedAt: new Date(), attempts: sql`${remediationSteps.attempts} + 1` })
    .where(and(eq(remediationSteps.id, step.id), eq(remediationSteps.status, "PENDING"), lease.live()))
    .returning({ id: remediationSteps.id });
  if (claimed.length === 0) {
    if (await lease.stillHeld()) return; // decided meanwhile by the worker this one took over from
    throw new LeaseLostError(rem.id, "step claim refused");
  }
  let pre = preImageOf(step);
  let outcome: TOutcome | null = null;
  try {
    if (resumed) {
      const seen = await throttled(deps, lease, step.connectorId, () => recheck(writer, step, pre));
      if (seen === "done") outcome = { status: "APPLIED" };
      if (seen === "gone") outcome = { status: "ALREADY_GONE" };
    }
    if (!outcome && readsPreImage(step) && !pre?.source) {
      const image = await throttled(deps, lease, step.connectorId, () => readAtSource(writer, step));
      if (image === null) outcome = { status: "ALREADY_GONE" };
      else {
        // Kept before the change is made: whatever happens next, undo has what to restore.
        pre = { source: image };
        const kept = await db
          .update(remediationSteps)
          .set({ preImage: pre as unknown as Record<string, unknown> })
          .where(and(eq(remediationSteps.id, step.id), eq(remediationSteps.status, "PENDING"), lease.held()))
          .returning({ id: remediationSteps.id });
        if (kept.length === 0) throw new LeaseLostError(rem.id, "pre-image refused");
      }
    }
    if (!outcome) {
      const made = await throttled(deps, lease, step.connectorId, () => act(writer, step));
      // Found already made on a step an earlier try started (and, reading pre-images, took the
      // pre-image of): that try's own change, which undo must put back.
      const ours = resumed && (!readsPreImage(step) || !!pre?.source);
      outcome = { status: made === "applied" || ours ? "APPLIED" : "ALREADY_GONE" };
    }
  } catch (err) {
    if (err instanceof LeaseLostError || retryable(err)) throw err;
    outcome = { status: "FAILED", error: stepErrorOf(err) };
  }
  await recordOutcome(deps, lease, rem, step, outcome, pre);
}

/** The step's outcome, the store and findings it changes and the counts, in one transaction. */
async function recordOutcome(
  deps: TRemediationDeps,
  lease: TLease,
  rem: TRemediationRow,
  step: TStepRow,
  outcome: TOutcome,
  pre: TPreImage | null,
) {
  const now = new Date();
  const deliveries = await deps.db.transaction(async (tx) => {
    await lockFindings(tx, rem.orgId);
    const [updated] = await tx
      .update(remediationSteps)
      .set({
        status: outcome.status,
        appliedAt: outcome.status === "FAILED" ? null : now,
        error: outcome.status === "FAILED" ? outcome.error : null,
      })
      .where(and(eq(remediationSteps.id, step.id), eq(remediationSteps.status, "PENDING"), lease.held()))
      .returning();
    if (!updated) {
      await lease.assertHeldIn(tx);
      return [];
    }
    if (outcome.status === "FAILED") {
      await refreshStepCounts(tx, rem.id);
      return [];
    }
    // What the source no longer has leaves the store (a downgrade found gone changes nothing).
    if (outcome.status === "APPLIED" || step.action !== "downgrade_permission") {
      const store = await storeAfterApply(tx, rem.orgId, updated);
      if (store || pre) {
        await tx
          .update(remediationSteps)
          .set({ preImage: { ...(pre ?? { source: null }), store } as unknown as Record<string, unknown> })
          .where(eq(remediationSteps.id, step.id));
      }
    }
    const ids = await resolveFindings(tx, {
      orgId: rem.orgId,
      remediationId: rem.id,
      step: updated,
      publicUrl: deps.runtime.publicUrl,
      now,
    });
    await refreshStepCounts(tx, rem.id);
    return ids;
  });
  await dispatchDeliveries(deps.jobs, deliveries);
}

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

/** The writers of the connectors a remediation's steps act on, built once per try. */
export async function writersOf(deps: TRemediationDeps, steps: readonly TStepRow[]) {
  const ids = [...new Set(steps.map((s) => s.connectorId))];
  const rows: TConnectorRow[] =
    ids.length === 0 ? [] : await deps.db.select().from(connectors).where(inArray(connectors.id, ids));
  const writers = new Map<string, TSourceWriter>();
  for (const c of rows) writers.set(c.id, (deps.writerFor ?? defaultWriterFor)(deps.db, c, deps.runtime));
  return (connectorId: string) => {
    const w = writers.get(connectorId);
    if (!w) throw new Error(`connector ${connectorId} is gone`);
    return w;
  };
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
    try {
      const writer = await writersOf(deps, steps);
      for (const step of steps) await applyStep(deps, lease, rem, step, writer(step.connectorId));
    } catch (err) {
      const last = ctx.attempt >= (ctx.attempts ?? REMEDIATION_ATTEMPTS);
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
