import { and, eq, exists, gte, inArray, isNull, lt, not, or, sql } from "drizzle-orm";
import { connectors, lockOrg, scans, type Db } from "@posture/db";
import { SCAN_JOB, scheduledScanAllowed } from "@posture/posture";
import type { TScanDeps } from "./deps";

const DAY_MS = 86_400_000;

/** A scan someone started (manual, scheduled, a sandbox's) that has not finished yet. */
const ACTIVE = ["QUEUED", "RUNNING"] as const;

/**
 * Not scanned for a day, and no scan of it queued or running (a first manual scan included). A
 * scan queued or running for over a day has no worker left (a scan's tries fail it when they
 * run out): it is failed as abandoned when the next one is created.
 */
function dueCondition(db: Db, since: Date) {
  const active = db
    .select({ one: sql`1` })
    .from(scans)
    .where(
      and(
        eq(scans.connectorId, connectors.id),
        inArray(scans.status, [...ACTIVE]),
        gte(scans.createdAt, since),
      ),
    );
  return and(or(isNull(connectors.lastScanAt), lt(connectors.lastScanAt, since)), not(exists(active)));
}

/** Still due, under the organization's scan lock: the check every path creating a scan shares. */
async function stillDue(tx: Db, connectorId: string, since: Date): Promise<boolean> {
  const [row] = await tx
    .select({ id: connectors.id })
    .from(connectors)
    .where(and(eq(connectors.id, connectorId), dueCondition(tx, since)));
  return row !== undefined;
}

/**
 * The daily schedule: every connector not scanned for a day gets a scheduled scan. A connector
 * with a scan queued or running (any trigger) is not due: the check and the insert happen under
 * the organization's `scans` lock, which the manual sync (`requestManualScan`) and the sandbox
 * take around their own check and insert, so two schedulers sweeping at once, or a sweep and a
 * manual sync, never start a second scan of one source. The scan id is derived from connector and
 * UTC date, so replicas sweeping at once also queue it once.
 */
export async function sweepDueScans(deps: Pick<TScanDeps, "db" | "jobs">, now = new Date()): Promise<number> {
  const since = new Date(now.getTime() - DAY_MS);
  const due = await deps.db
    .select({ id: connectors.id, orgId: connectors.orgId, displayName: connectors.displayName })
    .from(connectors)
    .where(dueCondition(deps.db, since));
  let queued = 0;
  const day = now.toISOString().slice(0, 10).replace(/-/g, "");
  for (const c of due) {
    const id = `scn_daily_${c.id}_${day}`;
    const inserted = await deps.db.transaction(async (tx) => {
      await tx.execute(lockOrg(c.orgId, "scans"));
      // The list above was read without the lock: a manual sync or another sweep may have
      // started a scan of this source since, or one may have finished.
      if (!(await stillDue(tx, c.id, since))) return [];
      if (!(await scheduledScanAllowed(tx, { orgId: c.orgId, now }))) return [];
      await tx
        .update(scans)
        .set({ status: "FAILED", error: "abandoned: no worker finished it", completedAt: now })
        .where(and(eq(scans.connectorId, c.id), inArray(scans.status, [...ACTIVE])));
      return tx
        .insert(scans)
        .values({ id, orgId: c.orgId, connectorId: c.id, connectorName: c.displayName, trigger: "scheduled" })
        .onConflictDoNothing()
        .returning({ id: scans.id });
    });
    if (inserted.length === 0) continue;
    await deps.jobs.enqueue(SCAN_JOB, { scanId: id }, { jobId: id });
    queued++;
  }
  return queued;
}

/**
 * The scans a stopped process left queued or running, queued again. The embedded queue (no
 * Redis) does not outlive its process: a sync handed over at shutdown, or a scan cut off by it,
 * is finished by the next start. Only for a process that is its database's one job runner (with
 * Redis the queue keeps the job, and another worker takes it over). Older than a day: abandoned,
 * left to the sweep.
 */
export async function resumeLeftScans(
  deps: Pick<TScanDeps, "db" | "jobs">,
  now = new Date(),
): Promise<string[]> {
  const left = await deps.db
    .select({ id: scans.id })
    .from(scans)
    .where(and(inArray(scans.status, [...ACTIVE]), gte(scans.createdAt, new Date(now.getTime() - DAY_MS))));
  for (const { id } of left) await deps.jobs.enqueue(SCAN_JOB, { scanId: id }, { jobId: id });
  return left.map((s) => s.id);
}
