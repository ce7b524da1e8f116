import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@posture/db";

// GET /api/exposure/ai's answer, kept in this process per organization while what it is computed
// from has not moved. Computing it costs a few queries and three posture what-ifs (drafting plans
// for up to 500 findings each: tens of ms of CPU on a large store); reading the state key costs
// one small query. The key moves with every committed change the answer reads, on every replica
// alike (it is read from PostgreSQL, not from this process), so a read never sees an answer older
// than the last change it could observe.

/** Organizations kept at most (the least recently computed go first). */
const KEPT = 200;
const memo = new Map<string, { key: string; answer: Promise<unknown> }>();

/**
 * What the answer reads, as one string: the open findings' counts with the time each count last
 * moved (org_finding_counts, kept by triggers in the writer's transaction), each connector's store
 * version and last scan (workspace_snapshots: a scan's commit and every remediation's change to the
 * store move it), the last completed scan, and the stored reach summaries.
 */
export async function exposureStateKey(db: Db, { orgId }: { orgId: string }): Promise<string> {
  const [row] = await queryRows<{ key: string }>(
    db,
    sql`SELECT concat_ws('|',
          (SELECT string_agg(concat_ws(':', category, severity, open, (extract(epoch FROM updated_at) * 1000000)::bigint), ','
                             ORDER BY category, severity)
             FROM org_finding_counts WHERE org_id = ${orgId}),
          (SELECT string_agg(concat_ws(':', c.id, c.type, s.scan_id, s.store_version, s.files), ',' ORDER BY c.id)
             FROM connectors c LEFT JOIN workspace_snapshots s ON s.connector_id = c.id WHERE c.org_id = ${orgId}),
          (SELECT max(completed_at)::text FROM scans WHERE org_id = ${orgId} AND status = 'COMPLETE'),
          (SELECT string_agg(concat_ws(':', connector_id, subject, scan_id, store_version,
                             (extract(epoch FROM computed_at) * 1000000)::bigint), ',' ORDER BY connector_id, subject)
             FROM ai_reach_summaries WHERE org_id = ${orgId})) AS key`,
  );
  return row?.key ?? "";
}

/** The kept answer for this state, or `compute`'s (kept until the state moves). */
export async function memoised<T>(slot: string, key: string, compute: () => Promise<T>): Promise<T> {
  const hit = memo.get(slot);
  if (hit && hit.key === key) return hit.answer as Promise<T>;
  const answer = compute();
  memo.delete(slot);
  if (memo.size >= KEPT) memo.delete(memo.keys().next().value ?? "");
  memo.set(slot, { key, answer });
  answer.catch(() => {
    if (memo.get(slot)?.answer === answer) memo.delete(slot);
  });
  return answer;
}
