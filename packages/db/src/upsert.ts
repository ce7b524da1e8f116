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
