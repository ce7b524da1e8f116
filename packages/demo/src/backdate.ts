import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@posture/db";

/**
 * Tables whose times are not the seed's to move: the audit chain hashes each row's time (moving
 * it would break `audit:verify`); credentials and sessions keep their real lifetimes; an evidence
 * package and a sharing approval expire counted from their real creation; activity events carry
 * the source's own times (the demo tenant's clock, already eight weeks long).
 */
const KEEP = new Set([
  "audit_log",
  "sessions",
  "api_keys",
  "users",
  "memberships",
  "sign_in_failures",
  "idempotency_keys",
  "evidence_jobs",
  "sharing_approvals",
  "activity_events",
]);

export type TWindow = { from: Date; to: Date; at: Date };

let columns: Promise<Map<string, string[]>> | undefined;
let columnsOf: Db | undefined;

/** Every table (not partition) with timestamptz columns, except KEEP: what a week's work may have written. */
async function datedColumns(db: Db): Promise<Map<string, string[]>> {
  if (columnsOf !== db || !columns) {
    columnsOf = db;
    columns = queryRows<{ table: string; column: string }>(
      db,
      sql`SELECT c.relname AS "table", a.attname AS "column"
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid = 'timestamptz'::regtype
        ORDER BY 1, 2`,
    ).then((rows) => {
      const byTable = new Map<string, string[]>();
      for (const r of rows) {
        if (KEEP.has(r.table)) continue;
        byTable.set(r.table, [...(byTable.get(r.table) ?? []), r.column]);
      }
      return byTable;
    });
  }
  return columns;
}

/**
 * The one place the demo history moves time. The services take no clock: each step of the story
 * (a week's scans, an incident moved, a report built) runs now, through the real code, inside a
 * wall-clock window of a few seconds; then every time that window wrote is moved to the week it
 * stands for, keeping its offset within the window (so a scan still starts before it completes,
 * and a finding is still detected by the scan that found it). Times outside the window (the
 * earlier weeks, already moved; expiries and next runs in the future) are untouched. The
 * incidents' status log keeps its times inside JSON, so it is moved the same way.
 */
export async function backdate(db: Db, w: TWindow): Promise<void> {
  const shift = sql`(${w.at.toISOString()}::timestamptz - ${w.from.toISOString()}::timestamptz)`;
  const inWindow = (col: ReturnType<typeof sql.identifier>) =>
    sql`${col} BETWEEN ${w.from.toISOString()}::timestamptz AND ${w.to.toISOString()}::timestamptz`;
  for (const [table, cols] of await datedColumns(db)) {
    const ids = cols.map((c) => sql.identifier(c));
    const sets = ids.map((c) => sql`${c} = CASE WHEN ${inWindow(c)} THEN ${c} + ${shift} ELSE ${c} END`);
    await db.execute(
      sql`UPDATE ${sql.identifier(table)} SET ${sql.join(sets, sql`, `)} WHERE ${sql.join(
        ids.map((c) => inWindow(c)),
        sql` OR `,
      )}`,
    );
  }
  const at = sql`(e->>'at')::timestamptz`;
  await db.execute(sql`UPDATE incidents SET log = (
      SELECT jsonb_agg(CASE WHEN e ? 'at' AND ${at} BETWEEN ${w.from.toISOString()}::timestamptz AND ${w.to.toISOString()}::timestamptz
        THEN jsonb_set(e, '{at}', to_jsonb(to_char((${at} + ${shift}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
        ELSE e END ORDER BY ord)
      FROM jsonb_array_elements(log) WITH ORDINALITY AS x(e, ord))
    WHERE jsonb_array_length(log) > 0`);
}
