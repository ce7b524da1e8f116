import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";

/**
 * The `SET` of an upsert that takes the named columns from the row that was proposed
 * (`ON CONFLICT … DO UPDATE SET severity = excluded.severity, …`).
 */
export function fromExcluded<T extends PgTable, K extends keyof T["_"]["columns"] & string>(
  table: T,
  keys: readonly K[],
): Record<K, SQL> {
  const columns = getTableColumns(table);
  return Object.fromEntries(
    keys.map((k) => [k, sql.raw(`excluded."${(columns[k] as { name: string }).name}"`)]),
  ) as Record<K, SQL>;
}

/** A column sent as one array: its name and the PostgreSQL type of its elements. */
export type TArrayColumn = readonly [name: string, type: "text" | "int" | "bool" | "timestamptz" | "bigint"];

/**
 * `unnest($1::text[], $2::int[], …) AS u("a", "b", …)`: many rows as one array parameter per
 * column, so a bulk statement's text and bind cost do not grow with the number of rows (unlike a
 * VALUES list with a parameter per cell). `rows[r][i]` is row r's value of column i; a missing
 * value is NULL.
 */
export function unnestRows(columns: readonly TArrayColumn[], rows: readonly (readonly unknown[])[]): SQL {
  const params = sql.join(
    columns.map(([, type], i) => sql`${arrayLiteral(rows.map((r) => r[i]))}::${sql.raw(type)}[]`),
    sql`, `,
  );
  const aliases = columns.map(([n]) => `"${n}"`).join(", ");
  return sql`unnest(${params}) AS u(${sql.raw(aliases)})`;
}

const NEEDS_ESCAPE = /[\\"]/;

/**
 * A PostgreSQL array literal of the values, every element quoted, in one pass: the drivers' own
 * serialisers run two regular expressions over every element (and type checks around them), which
 * was the largest client cost of a bulk statement. Dates are sent as ISO strings, everything else
 * as its string form; null and undefined as NULL.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ",";
    const v = values[i];
    if (v === null || v === undefined) {
      out += "NULL";
      continue;
    }
    const s = typeof v === "string" ? v : v instanceof Date ? v.toISOString() : String(v);
    out += NEEDS_ESCAPE.test(s) ? `"${s.replace(/[\\"]/g, "\\$&")}"` : `"${s}"`;
  }
  return `${out}}`;
}
