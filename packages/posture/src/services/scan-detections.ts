import { eq, sql } from "drizzle-orm";
import { newId, scanDetections, SEVERITY_RANK, unnestRows, type Db, type TArrayColumn } from "@posture/db";
import type { TDetectedFinding } from "../engine";

const BATCH = 2_000;

const COLUMNS: readonly TArrayColumn[] = [
  ["finding_id", "text"],
  ["fingerprint", "text"],
  ["rule_id", "text"],
  ["category", "text"],
  ["severity", "text"],
  ["severity_rank", "int"],
  ["title", "text"],
  ["resource_id", "text"],
  ["resource_name", "text"],
  ["resource_type", "text"],
  ["details", "text"],
];

/** Runs a statement in the transaction the detections must commit with (the scan's snapshot). */
export type TStageWrite = (statement: (tx: Db) => Promise<void>) => Promise<void>;

export type TDetectionStage = {
  add: (findings: readonly TDetectedFinding[]) => Promise<void>;
  /**
   * Takes back what was staged for one resource (an incremental scan's file reported again by the
   * change feed, or removed after all: the last report wins).
   */
  withdraw: (resourceType: string, resourceId: string) => Promise<void>;
  /** Sends what is buffered; call before the transaction commits. */
  flush: () => Promise<void>;
};

/**
 * Stages a scan's detections in `scan_detections` as the rule engine produces them, a batch at a
 * time, so the scan holds at most one batch of findings whatever the workspace's size. Each
 * detection is given the id its finding will have if it turns out to be new.
 */
export function stageDetections(write: TStageWrite, ids: { scanId: string; runId: string }): TDetectionStage {
  let batch: unknown[][] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    await write(async (tx) => {
      await tx.execute(sql`
        INSERT INTO scan_detections (scan_id, run_id, finding_id, fingerprint, rule_id, category, severity,
          severity_rank, title, resource_id, resource_name, resource_type, details)
        SELECT ${ids.scanId}, ${ids.runId}, u.finding_id, u.fingerprint, u.rule_id, u.category, u.severity,
          u.severity_rank, u.title, u.resource_id, u.resource_name, u.resource_type, u.details::jsonb
        FROM ${unnestRows(COLUMNS, rows)}`);
    });
  };
  return {
    add: async (findings) => {
      for (const d of findings) {
        batch.push([
          newId("fnd"),
          d.fingerprint,
          d.ruleId,
          d.category,
          d.severity,
          SEVERITY_RANK[d.severity],
          d.title,
          d.resourceId,
          d.resourceName,
          d.resourceType,
          JSON.stringify(d.details),
        ]);
      }
      if (batch.length >= BATCH) await flush();
    },
    withdraw: async (resourceType, resourceId) => {
      batch = batch.filter((row) => row[7] !== resourceId || row[9] !== resourceType);
      await write(async (tx) => {
        await tx.execute(sql`
          DELETE FROM scan_detections WHERE run_id = ${ids.runId}
            AND resource_type = ${resourceType} AND resource_id = ${resourceId}`);
      });
    },
    flush,
  };
}

/** Drops a scan's staged detections, every run of it (done with, or the scan failed). */
export async function dropDetections(db: Db, scanId: string): Promise<void> {
  await db.delete(scanDetections).where(eq(scanDetections.scanId, scanId));
}
