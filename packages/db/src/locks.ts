import { sql } from "drizzle-orm";

/** A transaction-scoped advisory lock on one organization's named resource (works on PGlite too). */
export function lockOrg(orgId: string, what: string) {
  return sql`select pg_advisory_xact_lock(hashtextextended(${`${what}:${orgId}`}, 0))`;
}
