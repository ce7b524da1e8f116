import { eq } from "drizzle-orm";
import { scans, type Db, type FULL_SCAN_REASONS, type TScanTiming } from "@posture/db";
import type { TCoverageGap } from "@posture/connectors";
import { dropDetections } from "./scan-detections";

/**
 * The scan job's name and result: what POST /sync queues and waits for. The job itself is
 * `@posture/scans`'s; posture only needs to name it.
 */
export const SCAN_JOB = "scan.run";
/** How long POST /sync waits for its scan before answering 202 with the scan still running. */
export const SYNC_WAIT_MS = 120_000;

export type TFullScanReason = (typeof FULL_SCAN_REASONS)[number];

export type TScanResult = {
  scanId: string;
  status: "QUEUED" | "RUNNING" | "COMPLETE" | "FAILED";
  /** `full`: the whole source was read; `incremental`: the files changed since the last scan. */
  kind: "full" | "incremental";
  /** Why a full scan was full (null for an incremental one, and for a scan not yet started). */
  fullReason: TFullScanReason | null;
  resources: number;
  findingsNew: number;
  findingsResolved: number;
  postureScore: number;
  /** What the scan could not read, and why (empty when it read everything). */
  coverage: TCoverageGap[];
  /** Where the scan's time went; null until its last stage ended. */
  timing: TScanTiming | null;
};

type TScanRow = typeof scans.$inferSelect;

export function toScanResult(s: TScanRow): TScanResult {
  return {
    scanId: s.id,
    status: s.status,
    kind: s.kind,
    fullReason: s.kind === "full" ? (s.fullReason ?? null) : null,
    resources: s.resources,
    findingsNew: s.findingsNew,
    findingsResolved: s.findingsResolved,
    postureScore: s.postureScore ?? 0,
    coverage: s.coverage ?? [],
    timing: s.timing ?? null,
  };
}

export async function failScan(db: Db, scanId: string, error: string) {
  await dropDetections(db, scanId);
  await db
    .update(scans)
    .set({ status: "FAILED", error, completedAt: new Date() })
    .where(eq(scans.id, scanId));
}
