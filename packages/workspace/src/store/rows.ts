/** Rows of a raw `db.execute`: node-postgres and PGlite both answer `{rows}` through drizzle. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}
