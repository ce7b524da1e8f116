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
/**
 * Steps whose outcomes are recorded together, in one transaction: small enough that a request
 * waits at most one batch's transaction on embedded PGlite.
 */
export const APPLY_BATCH = 50;
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

/**
 * Lets the process's other work run between two steps: on embedded PGlite every statement
 * resolves without leaving the microtask queue, so a job that waits on no timer (an unrated
 * source) would hold the event loop for its whole run, with requests unread and the lease's
 * renewal timer late.
 */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

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
 * The source a step changes: its writer, and whether its calls take the connector's tokens. A
 * demo connector's source is the sandbox's overlay in this service's own database, with no quota
 * to keep: its calls are bounded by the database alone (docs/decisions.md, "Remediation: the
 * apply in batches").
 */
export type TSourceOf = { connectorId: string; writer: TSourceWriter; rated: boolean };

/**
 * A source call under the connector's rate (a rated source), riding out the source's 429s (bounded), made only
 * while this worker holds the remediation's lease (checked before each try).
 */
export async function throttled<T>(
  deps: TRemediationDeps,
  lease: TLease,
  source: TSourceOf,
  call: () => Promise<T>,
): Promise<T> {
  const wait = deps.wait ?? sleep;
  for (let tries = 0; ; tries++) {
    if (source.rated) await rateOf(deps).take(source.connectorId);
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
async function applySteps(
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
    const stored = await storeAfterApply(tx, rem.orgId, changing);
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

/** The sources (writers) of the connectors a remediation's steps act on, built once per try. */
export async function writersOf(deps: TRemediationDeps, steps: readonly TStepRow[]) {
  const ids = [...new Set(steps.map((s) => s.connectorId))];
  const rows: TConnectorRow[] =
    ids.length === 0 ? [] : await deps.db.select().from(connectors).where(inArray(connectors.id, ids));
  const sources = new Map<string, TSourceOf>();
  for (const c of rows)
    sources.set(c.id, {
      connectorId: c.id,
      writer: (deps.writerFor ?? defaultWriterFor)(deps.db, c, deps.runtime),
      rated: c.mode !== "demo",
    });
  return (connectorId: string): TSourceOf => {
    const source = sources.get(connectorId);
    if (!source) throw new Error(`connector ${connectorId} is gone`);
    return source;
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
      for (let at = 0; at < steps.length; at += APPLY_BATCH)
        await applySteps(deps, lease, rem, steps.slice(at, at + APPLY_BATCH), writer);
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
