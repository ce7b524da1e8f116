import type { Db } from "./client";

const cache = new WeakMap<Db, Map<string, unknown>>();

/**
 * A query built once per database handle and reused: drizzle does not rebuild its SQL, and on
 * node-postgres the statement is prepared once per connection. For the hot paths (credential
 * lookup, list endpoints) that run on every request.
 */
export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let byName = cache.get(db);
  if (!byName) {
    byName = new Map();
    cache.set(db, byName);
  }
  let query = byName.get(name) as T | undefined;
  if (query === undefined) {
    query = build(db);
    byName.set(name, query);
  }
  return query;
}
