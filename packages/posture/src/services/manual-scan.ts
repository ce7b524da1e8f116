import { and, eq, inArray, sql } from "drizzle-orm";
import { connectors, queryErrorFields, scans, type Db, type TPlanId } from "@posture/db";
import { JobTimeoutError } from "@posture/jobs";
import { AppError, audit, PLANS, type TActor, type TJobQueue, type TLogger } from "@posture/platform";
import { getConnector } from "./connectors";
import { lockOrg } from "./locks";
import { scansStartedToday } from "./scan-allowance";
import { failScan, SCAN_JOB, SYNC_WAIT_MS, toScanResult, type TScanResult } from "./scan-result";

/** A queued or running scan older than this is considered lost (its worker died without a retry). */
const STALE_SCAN_MS = 15 * 60_000;

function secondsToUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

export type TManualScanOptions = {
  /** Read the whole source even when its change feeds could say what changed. */
  full?: boolean;
  /** Demo connectors only: move the synthetic tenant this many revisions forward first. */
  demo?: { advance?: number };
};

/**
 * Queues a manual scan (or joins the one already running for this connector), enforcing the
 * plan's daily ceiling per organization and UTC day, and waits for the result.
 */
export async function requestManualScan(
  db: Db,
  input: { orgId: string; actor: TActor; plan: TPlanId; connectorId: string } & TManualScanOptions,
  deps: { jobs: TJobQueue; log: TLogger },
) {
  const connector = await getConnector(db, { orgId: input.orgId, id: input.connectorId });
  if (input.demo && connector.mode !== "demo")
    throw new AppError("invalid_input", "demo applies to demo connectors only", {
      details: [{ path: "demo", message: "demo applies to demo connectors only" }],
    });
  const now = new Date();
  const scan = await db.transaction(async (tx) => {
    await tx.execute(lockOrg(input.orgId, "scans"));
    // The sandbox tenant changes when asked, with the scan that reads the change (a refused scan
    // leaves it as it was). A scan already running may or may not see it; the next one does.
    const advance = input.demo?.advance ?? 0;
    if (advance > 0)
      await tx
        .update(connectors)
        .set({
          config: sql`jsonb_set(${connectors.config}, '{revision}',
            to_jsonb(coalesce((${connectors.config}->>'revision')::int, 0) + ${advance}::int))`,
        })
        .where(eq(connectors.id, connector.id));
    const [inflight] = await tx
      .select()
      .from(scans)
      .where(and(eq(scans.connectorId, connector.id), inArray(scans.status, ["QUEUED", "RUNNING"])))
      .limit(1);
    if (inflight && now.getTime() - inflight.createdAt.getTime() < STALE_SCAN_MS) return inflight;
    if (inflight) {
      await tx
        .update(scans)
        .set({ status: "FAILED", error: "abandoned: no worker finished it" })
        .where(eq(scans.id, inflight.id));
    }
    const max = PLANS[input.plan].scansPerDay;
    if (max !== null) {
      if ((await scansStartedToday(tx, { orgId: input.orgId, trigger: "manual", now })) >= max) {
        const retryAfter = secondsToUtcMidnight(now);
        throw new AppError(
          "rate_limited",
          `Your plan allows ${max} manual scans per day; the count resets at 00:00 UTC`,
          { retryAfter },
          { "Retry-After": String(retryAfter) },
        );
      }
    }
    const [created] = await tx
      .insert(scans)
      .values({
        orgId: input.orgId,
        connectorId: connector.id,
        connectorName: connector.displayName,
        trigger: "manual",
        requestedByUserId: input.actor.userId,
        // The scan job reads this back: a scan created full-and-requested is never incremental.
        ...(input.full ? { kind: "full" as const, fullReason: "requested" as const } : {}),
      })
      .returning();
    if (!created) throw new Error("scan insert returned nothing");
    await audit(tx, input, {
      action: "SCAN_TRIGGERED",
      target: connector.id,
      metadata: {
        scanId: created.id,
        ...(input.full ? { full: true } : {}),
        ...(advance > 0 ? { advance } : {}),
      },
    });
    return created;
  });
  try {
    await deps.jobs.runAndWait<TScanResult>(
      SCAN_JOB,
      { scanId: scan.id },
      { jobId: scan.id, timeoutMs: SYNC_WAIT_MS },
    );
  } catch (err) {
    if (err instanceof JobTimeoutError) {
      deps.log.warn({ scanId: scan.id }, "scan still running when the request stopped waiting");
    } else {
      const [state] = await db.select({ status: scans.status }).from(scans).where(eq(scans.id, scan.id));
      if (state?.status === "QUEUED") {
        // Never picked up: the queue itself is unreachable (Redis down). Say so rather than leave
        // a scan nobody will run.
        await failScan(db, scan.id, "job queue unavailable");
        throw new AppError("service_unavailable", "The scan queue is unavailable; try again shortly", {
          scanId: scan.id,
        });
      }
      // The job failed through all its tries without recording why: record it.
      if (state?.status === "RUNNING") await failScan(db, scan.id, "scan job failed");
      // The job logged each try's reason; this is the request's side of it.
      deps.log.error({ scanId: scan.id, ...queryErrorFields(err) }, "sync: the scan job failed");
    }
  }
  const [latest] = await db.select().from(scans).where(eq(scans.id, scan.id));
  if (!latest) throw new Error("scan vanished");
  if (latest.status === "FAILED") {
    throw new AppError("upstream_unavailable", `Scan failed: ${latest.error ?? "source unavailable"}`, {
      scanId: latest.id,
    });
  }
  return { result: toScanResult(latest), finished: latest.status === "COMPLETE" };
}
