import { eq } from "drizzle-orm";
import { workspaceSnapshots, type Db } from "@posture/db";
import { emptyMetrics, METRIC_KEYS, type TSnapshotMetrics } from "../store/metrics";

export type TOrgTotals = {
  users: number;
  files: number;
  drives: number;
  shares: number;
  metrics: TSnapshotMetrics;
  /** The newest snapshot's time, null before the first scan. */
  takenAt: Date | null;
};

/** The organization's resource-store sizes and tallies: the sum over its connectors' snapshots. */
export async function orgTotals(db: Db, { orgId }: { orgId: string }): Promise<TOrgTotals> {
  const rows = await db.select().from(workspaceSnapshots).where(eq(workspaceSnapshots.orgId, orgId));
  const totals: TOrgTotals = {
    users: 0,
    files: 0,
    drives: 0,
    shares: 0,
    metrics: emptyMetrics(),
    takenAt: null,
  };
  for (const r of rows) {
    totals.users += r.users;
    totals.files += r.files;
    totals.drives += r.drives;
    totals.shares += r.shares;
    for (const k of METRIC_KEYS) totals.metrics[k] += Number(r.metrics[k] ?? 0);
    if (!totals.takenAt || r.takenAt > totals.takenAt) totals.takenAt = r.takenAt;
  }
  return totals;
}

/** `%term%` for LIKE, with the pattern characters of the term taken literally. */
export function likePattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
