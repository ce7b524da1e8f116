import { eq } from "drizzle-orm";
import { connectors, scans } from "@posture/db";
import type { TJobModule } from "@posture/jobs";
import { SCAN_JOB } from "@posture/posture";
import { activityJobOf, runActivityJob } from "./activity-job";
import { ACTIVITY_ATTEMPTS, ACTIVITY_JOB, SCAN_ATTEMPTS, SCAN_SWEEP_JOB, type TScanDeps } from "./deps";
import { runScanJob } from "./scan-job";
import { sweepDueScans } from "./sweep";

const SWEEP_EVERY_MS = 5 * 60_000;

const scanIdOf = (data: unknown): string => {
  const scanId = (data as { scanId?: unknown } | null)?.scanId;
  if (typeof scanId !== "string") throw new Error("scan job without scanId");
  return scanId;
};

/**
 * The scan pipeline's background work: the scan job (manual and scheduled scans alike), the
 * activity ingestion each completed scan queues for its connector, and the sweep that queues the
 * daily scans coming due. The apps combine it with the other modules.
 */
export const scansJobs: TJobModule<TScanDeps> = {
  definitions: (deps) => ({
    [SCAN_JOB]: {
      attempts: SCAN_ATTEMPTS,
      backoffMs: 5_000,
      // Scans have workers of their own, and one organization holds at most its share of them.
      queue: "scans",
      orgOf: async (data) => {
        const [row] = await deps.db
          .select({ orgId: scans.orgId })
          .from(scans)
          .where(eq(scans.id, scanIdOf(data)));
        return row?.orgId ?? null;
      },
      handler: (data, { attempt }) => runScanJob(deps, scanIdOf(data), attempt),
    },
    [ACTIVITY_JOB]: {
      attempts: ACTIVITY_ATTEMPTS,
      // 10, 20, 40 s: a source's throttling or a passing outage, ridden out before giving up.
      backoffMs: 10_000,
      // It reads the source as a scan does, and counts against the organization's share of scans.
      queue: "scans",
      orgOf: async (data) => {
        const [row] = await deps.db
          .select({ orgId: connectors.orgId })
          .from(connectors)
          .where(eq(connectors.id, activityJobOf(data).connectorId));
        return row?.orgId ?? null;
      },
      handler: (data, { attempt }) => runActivityJob(deps, activityJobOf(data), attempt),
    },
    [SCAN_SWEEP_JOB]: { attempts: 1, backoffMs: 0, handler: () => sweepDueScans(deps) },
  }),
  periodic: [{ name: SCAN_SWEEP_JOB, schedulerId: "periodic-scan-sweep", everyMs: SWEEP_EVERY_MS }],
};
