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
    columns.map(([, type], i) => sql`${columnLiteral(rows, i)}::${sql.raw(type)}[]`),
    sql`, `,
  );
  const aliases = columns.map(([n]) => `"${n}"`).join(", ");
  return sql`unnest(${params}) AS u(${sql.raw(aliases)})`;
}

// An element must be quoted when PostgreSQL's array parser would read it otherwise: empty,
// containing a delimiter, brace, quote, backslash or whitespace (trimmed when unquoted), or
// spelling NULL in any case.
const SPECIAL = /[{},"\\\s]/;
const NULL_WORD = /^null$/i;
const NEEDS_ESCAPE = /[\\"]/g;

/**
 * A PostgreSQL array literal of the values, in one pass. The drivers' own serialisers run two
 * regular expressions over every element (and type checks around them), which was the largest
 * client cost of a bulk statement. Elements are quoted only when they must be (ids, e-mails,
 * numbers and times never are) and joined once: building the literal by concatenation left
 * several short-lived strings per element for the garbage collector. Dates are sent as ISO
 * strings, everything else as its string form; null and undefined as NULL.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) parts[i] = element(values[i]);
  return `{${parts.join(",")}}`;
}

/** `arrayLiteral` of column `c` of the rows, without copying the column out first. */
function columnLiteral(rows: readonly (readonly unknown[])[], c: number): string {
  const parts = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) parts[i] = element(rows[i]?.[c]);
  return `{${parts.join(",")}}`;
}

function element(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "string") return quoted(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return v instanceof Date ? v.toISOString() : quoted(String(v));
}

const quoted = (s: string) =>
  s.length === 0 || SPECIAL.test(s) || (s.length === 4 && NULL_WORD.test(s))
    ? `"${s.replace(NEEDS_ESCAPE, "\\$&")}"`
    : s;
