import { and, eq, lt, sql } from "drizzle-orm";
import { lockOrg, sandboxScenarioRuns, type Db } from "@posture/db";
import { AppError, audit, iso, type TActor, type TJobQueue, type TScope } from "@posture/platform";
import type { TScanRecord } from "./scans";
import type { TTenantChange } from "./tenant-changes";

/**
 * How long a run may take: its job's bound (room for a baseline scan and one more). A run still
 * RUNNING past it lost its job (a worker that died, a job that timed out) and no longer holds the
 * organization: it reads as FAILED, and the next request records it so.
 */
export const RUN_BOUND_MS = 25 * 60_000;

const LOST = "the run did not finish within 25 minutes (its job was lost); ask for it again";

/**
 * A run's request. `prepare` decides, under the sandbox's lock, what the run works on (for a
 * scenario the tenant it changes, connecting a source on first use; for a reset the sources it
 * reads), so two requests never both connect one; what it returns is the run's record.
 */
type TRunRequest<T extends object> = {
  kind: string;
  audit: "SANDBOX_SCENARIO_STARTED" | "SANDBOX_RESET";
  prepare: (tx: Db) => Promise<T>;
};

/** A live run of the organization: a RUNNING row within its bound. */
async function liveRun(db: Db, orgId: string) {
  const running = await db
    .select({ id: sandboxScenarioRuns.id, createdAt: sandboxScenarioRuns.createdAt })
    .from(sandboxScenarioRuns)
    .where(and(eq(sandboxScenarioRuns.orgId, orgId), eq(sandboxScenarioRuns.status, "RUNNING")));
  const cutoff = Date.now() - RUN_BOUND_MS;
  return { live: running.find((r) => r.createdAt.getTime() >= cutoff), stale: running.length > 0, cutoff };
}

const busy = (id: string) =>
  new AppError(
    "conflict",
    `Sandbox run ${id} is still running; one run at a time per sandbox (follow it with GET /api/sandbox/scenarios/${id})`,
    { runningId: id },
  );

/**
 * Opens a run: one at a time per sandbox, so two scenarios never change one tenant at once and a
 * reset never clears what a scenario is scanning. Under the organization's lock, a run RUNNING
 * within its bound makes this 409 `conflict` with its id (`runningId`); one past it is closed as
 * FAILED; then the run is prepared and its row and audit row written, all in one transaction.
 */
export async function openRun<T extends object>(
  db: Db,
  scope: TScope,
  req: TRunRequest<T>,
): Promise<{ id: string; createdAt: Date; metadata: T }> {
  return db.transaction(async (tx) => {
    await tx.execute(lockOrg(scope.orgId, "sandbox_run"));
    const { live, stale, cutoff } = await liveRun(tx, scope.orgId);
    if (live) throw busy(live.id);
    if (stale) {
      const closed = await tx
        .update(sandboxScenarioRuns)
        .set({ status: "FAILED", error: LOST, completedAt: new Date() })
        .where(
          and(
            eq(sandboxScenarioRuns.orgId, scope.orgId),
            eq(sandboxScenarioRuns.status, "RUNNING"),
            lt(sandboxScenarioRuns.createdAt, new Date(cutoff)),
          ),
        )
        .returning({ id: sandboxScenarioRuns.id });
      for (const { id } of closed)
        await audit(tx, scope, {
          action: "SANDBOX_SCENARIO_FINISHED",
          target: id,
          metadata: { status: "FAILED", scans: [], error: LOST },
        });
    }
    const metadata = await req.prepare(tx);
    const [row] = await tx
      .insert(sandboxScenarioRuns)
      .values({
        orgId: scope.orgId,
        kind: req.kind,
        requestedByUserId: scope.actor.userId,
        result: { ...metadata, scans: [] },
      })
      .returning({ id: sandboxScenarioRuns.id, createdAt: sandboxScenarioRuns.createdAt });
    if (!row) throw new Error("sandbox run insert returned no row");
    await audit(tx, scope, {
      action: req.audit,
      target: row.id,
      metadata: { kind: req.kind, ...metadata },
    });
    return { ...row, metadata };
  });
}

/**
 * Whether the run's job may still act: a job that starts after its run was closed as lost (it sat
 * in a queue past the bound) changes nothing, since the sandbox may be running another run by now.
 */
export async function runIsOpen(db: Db, runId: string): Promise<boolean> {
  const [row] = await db
    .select({ status: sandboxScenarioRuns.status, createdAt: sandboxScenarioRuns.createdAt })
    .from(sandboxScenarioRuns)
    .where(eq(sandboxScenarioRuns.id, runId));
  return row?.status === "RUNNING" && row.createdAt.getTime() >= Date.now() - RUN_BOUND_MS;
}

/** Queues the run's job; a queue that refuses it fails the run at once, so it holds nothing. */
export async function enqueueRun(
  deps: { db: Db; jobs: TJobQueue },
  name: string,
  job: { runId: string; orgId: string; actor: TActor },
): Promise<void> {
  try {
    await deps.jobs.enqueue(name, job, { jobId: job.runId });
  } catch (err) {
    await finishRun(deps.db, job, { status: "FAILED", scans: [], error: "the run could not be queued" });
    throw err;
  }
}

export type TRunOutcome = {
  status: "COMPLETE" | "FAILED";
  change?: TTenantChange;
  scans: TScanRecord[];
  error?: string;
};

/**
 * The job's end: the row gets its outcome (merged into what the request recorded) unless the run
 * was already closed as lost, and the audit trail its SANDBOX_SCENARIO_FINISHED, in one transaction.
 */
export async function finishRun(
  db: Db,
  job: { runId: string; orgId: string; actor: TActor },
  outcome: TRunOutcome,
): Promise<void> {
  const result = { change: outcome.change ?? null, scans: outcome.scans };
  await db.transaction(async (tx) => {
    await tx
      .update(sandboxScenarioRuns)
      .set({
        status: outcome.status,
        result: sql`coalesce(${sandboxScenarioRuns.result}, '{}'::jsonb) || ${JSON.stringify(result)}::jsonb`,
        error: outcome.error ?? null,
        completedAt: new Date(),
      })
      .where(and(eq(sandboxScenarioRuns.id, job.runId), eq(sandboxScenarioRuns.status, "RUNNING")));
    await audit(
      tx,
      { orgId: job.orgId, actor: job.actor },
      { action: "SANDBOX_SCENARIO_FINISHED", target: job.runId, metadata: outcome },
    );
  });
}

/**
 * GET /api/sandbox/scenarios/{id}: the run's row. RUNNING reads as QUEUED (the API's word since
 * before runs had a table: the job is queued or under way), a run past its bound as FAILED.
 */
export async function readRun(db: Db, input: { orgId: string; id: string }) {
  const [row] = await db
    .select()
    .from(sandboxScenarioRuns)
    .where(and(eq(sandboxScenarioRuns.orgId, input.orgId), eq(sandboxScenarioRuns.id, input.id)));
  if (!row) throw new AppError("not_found", "Sandbox run not found");
  const lost = row.status === "RUNNING" && row.createdAt.getTime() < Date.now() - RUN_BOUND_MS;
  const result = (row.result ?? {}) as { change?: Record<string, unknown> | null; scans?: TScanRecord[] };
  const status: "QUEUED" | "COMPLETE" | "FAILED" = lost
    ? "FAILED"
    : row.status === "RUNNING"
      ? "QUEUED"
      : row.status;
  return {
    id: row.id,
    kind: row.kind,
    status,
    createdAt: iso(row.createdAt),
    finishedAt: iso(row.completedAt),
    change: result.change ?? null,
    scans: result.scans ?? [],
    error: lost ? LOST : row.error,
  };
}
