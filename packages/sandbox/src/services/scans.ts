import { setTimeout as sleep } from "node:timers/promises";
import { and, eq, inArray } from "drizzle-orm";
import { lockOrg, scans, type connectors, type Db } from "@posture/db";
import type { TActor, TJobQueue } from "@posture/platform";
import { SCAN_JOB, toScanResult, type TScanResult } from "@posture/posture";

type TConnectorRow = typeof connectors.$inferSelect;
export type TScanRunDeps = { db: Db; jobs: TJobQueue };

/** A scan a run made, as its record shows it. */
export type TScanRecord = {
  connectorId: string;
  scanId: string;
  status: string;
  kind: string;
  findingsNew: number;
  findingsResolved: number;
};

/** How long a scenario waits for one scan (a sandbox tenant is small; a large one may take minutes). */
const SCAN_WAIT_MS = 10 * 60_000;
const INFLIGHT_WAIT_MS = 5 * 60_000;

/**
 * One scan of a sandbox connector, through the scan queue like every scan (`scan.run`: the change
 * feed, the rules, the store, findings, events, prevention, then the activity job), waited for.
 * A scan already running for the connector is waited out first, so this one reads after it.
 */
export async function scanConnector(
  deps: TScanRunDeps,
  connector: TConnectorRow,
  actor: TActor,
  opts: { full?: boolean } = {},
): Promise<TScanResult> {
  const inflight = (db: Db) =>
    db
      .select({ id: scans.id })
      .from(scans)
      .where(and(eq(scans.connectorId, connector.id), inArray(scans.status, ["QUEUED", "RUNNING"])))
      .limit(1);
  const until = Date.now() + INFLIGHT_WAIT_MS;
  let scan: typeof scans.$inferSelect | null = null;
  while (!scan) {
    scan = await deps.db.transaction(async (tx) => {
      await tx.execute(lockOrg(connector.orgId, "scans"));
      // Checked under the lock the sweep and POST /sync take: none of them starts a scan of this
      // source between the check and the insert (past the wait, this one is inserted anyway).
      if (Date.now() < until && (await inflight(tx)).length > 0) return null;
      const [row] = await tx
        .insert(scans)
        .values({
          orgId: connector.orgId,
          connectorId: connector.id,
          connectorName: connector.displayName,
          trigger: "manual",
          requestedByUserId: actor.userId,
          ...(opts.full ? { kind: "full" as const, fullReason: "requested" as const } : {}),
        })
        .returning();
      if (!row) throw new Error("scan insert returned nothing");
      return row;
    });
    if (!scan) await sleep(250);
  }
  await deps.jobs.runAndWait<TScanResult>(
    SCAN_JOB,
    { scanId: scan.id },
    { jobId: scan.id, timeoutMs: SCAN_WAIT_MS },
  );
  const [done] = await deps.db.select().from(scans).where(eq(scans.id, scan.id));
  if (!done) throw new Error("scan vanished");
  return toScanResult(done);
}

/** Whether the connector has a completed scan: a scenario's scan must read a change, not the whole tenant. */
export async function hasBaseline(db: Db, connectorId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: scans.id })
    .from(scans)
    .where(and(eq(scans.connectorId, connectorId), eq(scans.status, "COMPLETE")))
    .limit(1);
  return row !== undefined;
}
