import { isNull, lt, or } from "drizzle-orm";
import { connectors, lockOrg, scans } from "@posture/db";
import { SCAN_JOB, scheduledScanAllowed } from "@posture/posture";
import type { TScanDeps } from "./deps";

const DAY_MS = 86_400_000;

/**
 * The daily schedule: every connector not scanned for a day gets a scheduled scan. The scan id is
 * derived from connector and UTC date, so replicas sweeping at once create and queue it once.
 */
export async function sweepDueScans(deps: Pick<TScanDeps, "db" | "jobs">, now = new Date()): Promise<number> {
  const due = await deps.db
    .select({ id: connectors.id, orgId: connectors.orgId, displayName: connectors.displayName })
    .from(connectors)
    .where(or(isNull(connectors.lastScanAt), lt(connectors.lastScanAt, new Date(now.getTime() - DAY_MS))));
  let queued = 0;
  const day = now.toISOString().slice(0, 10).replace(/-/g, "");
  for (const c of due) {
    const id = `scn_daily_${c.id}_${day}`;
    const inserted = await deps.db.transaction(async (tx) => {
      await tx.execute(lockOrg(c.orgId, "scans"));
      if (!(await scheduledScanAllowed(tx, c.orgId, now))) return [];
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
