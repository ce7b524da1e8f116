import { and, count, eq, gte, inArray } from "drizzle-orm";
import { scans } from "@posture/db";
import { JobTimeoutError } from "@posture/jobs";
import { AppError, PLANS, recordAudit, type TPrincipal } from "@posture/platform";
import { getConnector } from "./connectors";
import { lockOrg } from "./locks";
import {
  failScan,
  SCAN_JOB,
  SYNC_WAIT_MS,
  toScanResult,
  type TScanDeps,
  type TScanResult,
} from "./scan-runner";

/** A queued or running scan older than this is considered lost (its worker died without a retry). */
const STALE_SCAN_MS = 15 * 60_000;

function secondsToUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

function utcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/**
 * Queues a manual scan (or joins the one already running for this connector), enforcing the
 * plan's daily ceiling per organization and UTC day, and waits for the result.
 */
export async function requestManualScan(deps: TScanDeps, principal: TPrincipal, connectorId: string) {
  const { db } = deps;
  const connector = await getConnector(db, principal.org.id, connectorId);
  const now = new Date();
  const { scan, joined } = await db.transaction(async (tx) => {
    await tx.execute(lockOrg(principal.org.id, "scans"));
    const [inflight] = await tx
      .select()
      .from(scans)
      .where(and(eq(scans.connectorId, connector.id), inArray(scans.status, ["QUEUED", "RUNNING"])))
      .limit(1);
    if (inflight && now.getTime() - inflight.createdAt.getTime() < STALE_SCAN_MS)
      return { scan: inflight, joined: true };
    if (inflight) {
      await tx
        .update(scans)
        .set({ status: "FAILED", error: "abandoned: no worker finished it" })
        .where(eq(scans.id, inflight.id));
    }
    const max = PLANS[principal.org.plan].scansPerDay;
    if (max !== null) {
      const [used] = await tx
        .select({ n: count() })
        .from(scans)
        .where(
          and(
            eq(scans.orgId, principal.org.id),
            eq(scans.trigger, "manual"),
            gte(scans.createdAt, utcMidnight(now)),
          ),
        );
      if ((used?.n ?? 0) >= max) {
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
        orgId: principal.org.id,
        connectorId: connector.id,
        connectorName: connector.displayName,
        trigger: "manual",
        requestedByUserId: principal.userId,
      })
      .returning();
    if (!created) throw new Error("scan insert returned nothing");
    return { scan: created, joined: false };
  });
  if (!joined) {
    await recordAudit(db, {
      orgId: principal.org.id,
      action: "SCAN_TRIGGERED",
      target: connector.id,
      userId: principal.userId,
      userEmail: principal.userEmail,
      metadata: { scanId: scan.id },
    });
  }
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
      deps.log.error({ err, scanId: scan.id }, "scan job failed");
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
