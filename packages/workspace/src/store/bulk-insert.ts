import { sql } from "drizzle-orm";
import { unnestRows, type Db, type TArrayColumn } from "@posture/db";

/** A column of a bulk insert: its name and the PostgreSQL array type its values are sent as. */
export type TColumn = TArrayColumn;

export type TBulkOptions = {
  /** Columns computed from the unnested row `u` (inputs named `_…` are not stored themselves). */
  computed?: ReadonlyArray<readonly [name: string, expression: string]>;
  /**
   * Upsert on `id`. `changed`: a row that exists is rewritten only when a stored column differs,
   * so an unchanged row costs an index probe and no write (no new tuple, no lock, no WAL, no index
   * churn). `all`: no probe, for loads where (almost) nothing exists yet.
   */
  upsert?: "changed" | "all";
};

/**
 * Inserts many rows in one statement and one round trip: one array parameter per column,
 * unnested server-side. The statement text depends only on the table and columns, so it stays
 * short whatever the batch size (unlike a VALUES list with a parameter per cell). Returns the
 * rows written (inserted or changed).
 */
export async function bulkInsert(
  db: Db,
  table: string,
  columns: readonly TColumn[],
  rows: readonly unknown[][],
  opts: TBulkOptions = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  const computed = opts.computed ?? [];
  const stored = [...columns.map(([n]) => n).filter((n) => !n.startsWith("_")), ...computed.map(([n]) => n)];
  const names = stored.map((n) => `"${n}"`).join(", ");
  const selects = [
    ...columns
      .map(([n]) => n)
      .filter((n) => !n.startsWith("_"))
      .map((n) => `u."${n}"`),
    ...computed.map(([, e]) => e),
  ].join(", ");
  const unnest = unnestRows(columns, rows);
  if (!opts.upsert) {
    const result = await db.execute(
      sql`INSERT INTO ${sql.raw(`"${table}"`)} (${sql.raw(names)}) SELECT ${sql.raw(selects)} FROM ${unnest}`,
    );
    return affected(result);
  }
  // Rows identical to the stored ones are filtered out by a read-only probe first: ON CONFLICT
  // DO UPDATE would lock (and so write) every conflicting row even when it changes nothing.
  const updated = stored.filter((n) => n !== "id");
  const cols = (alias: string) => updated.map((n) => `${alias}."${n}"`).join(", ");
  const set = updated.map((n) => `"${n}" = excluded."${n}"`).join(", ");
  const aliased = [
    ...columns
      .map(([n]) => n)
      .filter((n) => !n.startsWith("_"))
      .map((n) => `u."${n}" AS "${n}"`),
    ...computed.map(([n, e]) => `${e} AS "${n}"`),
  ].join(", ");
  const probe =
    opts.upsert === "changed"
      ? sql`WHERE NOT EXISTS (SELECT 1 FROM ${sql.raw(`"${table}"`)} x WHERE x.id = v.id AND (${sql.raw(cols("x"))}) IS NOT DISTINCT FROM (${sql.raw(cols("v"))}))`
      : sql``;
  const result = await db.execute(sql`
    WITH v AS (SELECT ${sql.raw(aliased)} FROM ${unnest})
    INSERT INTO ${sql.raw(`"${table}"`)} AS t (${sql.raw(names)})
    SELECT ${sql.raw(stored.map((n) => `v."${n}"`).join(", "))} FROM v ${probe}
    ON CONFLICT (id) DO UPDATE SET ${sql.raw(set)}`);
  return affected(result);
}

/** Rows a statement touched: node-postgres says `rowCount`, PGlite `affectedRows`. */
export function affected(result: unknown): number {
  const r = result as { rowCount?: number | null; affectedRows?: number };
  return r.rowCount ?? r.affectedRows ?? 0;
}
