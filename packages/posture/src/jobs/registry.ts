import type { TJobRegistry } from "@posture/jobs";
import { purgeExpiredIdempotencyKeys } from "@posture/platform";
import { webhookJobDefinitions } from "@posture/webhooks";
import {
  runScanJob,
  SCAN_ATTEMPTS,
  SCAN_JOB,
  sweepDueScans,
  SCAN_SWEEP_JOB,
  type TScanDeps,
} from "../services/scan-runner";

/** Housekeeping: expired Idempotency-Key records. */
export const PURGE_JOB = "maintenance.purge";

const ZScanJob = (data: unknown): { scanId: string } => {
  const scanId = (data as { scanId?: unknown } | null)?.scanId;
  if (typeof scanId !== "string") throw new Error("scan job without scanId");
  return { scanId };
};

export function postureJobDefinitions(deps: TScanDeps): TJobRegistry {
  return {
    [SCAN_JOB]: {
      attempts: SCAN_ATTEMPTS,
      backoffMs: 5_000,
      handler: (data, { attempt }) => runScanJob(deps, ZScanJob(data).scanId, attempt),
    },
    [SCAN_SWEEP_JOB]: { attempts: 1, backoffMs: 0, handler: () => sweepDueScans(deps) },
    [PURGE_JOB]: { attempts: 1, backoffMs: 0, handler: () => purgeExpiredIdempotencyKeys(deps.db) },
  };
}

/** Every job the service runs; the gateway (embedded) and the scheduler (BullMQ) both use this. */
export function buildJobRegistry(deps: TScanDeps): TJobRegistry {
  return { ...postureJobDefinitions(deps), ...webhookJobDefinitions(deps) };
}
