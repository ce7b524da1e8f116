import { createHash } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db } from "./client";

/**
 * The resource store's tables partitioned by connector (migration 0020): small connectors' rows
 * live in `<table>_default`, a connector whose first snapshot was large has a partition of its own.
 */
export const CONNECTOR_PARTITIONED = [
  "workspace_files",
  "workspace_permissions",
  "workspace_shares",
] as const;
export type TPartitionedTable = (typeof CONNECTOR_PARTITIONED)[number];

/** The name of `table`'s partition for the connector (`workspace_partition_name` in SQL). */
export function partitionName(table: TPartitionedTable, connectorId: string): string {
  return `${table}_p${createHash("md5").update(connectorId).digest("hex").slice(0, 16)}`;
}

/** Whether an error is PostgreSQL's "canceling statement due to lock timeout" (55P03). */
export function isLockTimeout(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "55P03") return true;
  }
  return false;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type TLockRetry = { lockTimeoutMs: number; attempts: number; pauseMs: number };

/**
 * Runs a statement that needs a strong lock inside the open transaction `tx`, waiting at most
 * `lockTimeoutMs` for it each time (a statement queued for an ACCESS EXCLUSIVE lock stalls every
 * later reader of the table while it waits), behind a savepoint so that a timeout leaves the
 * transaction usable; between attempts nothing is held. Returns the statement's rows, or null
 * when every attempt timed out; any other error is thrown.
 */
export async function withLockRetry<T>(tx: Db, statement: SQL, retry: TLockRetry): Promise<T[] | null> {
  for (let attempt = 1; ; attempt++) {
    await tx.execute(sql`SAVEPOINT lock_retry`);
    try {
      await tx.execute(sql.raw(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(retry.lockTimeoutMs))}`));
      const rows = await queryRows<T>(tx, statement);
      await tx.execute(sql`SET LOCAL lock_timeout = 0`);
      await tx.execute(sql`RELEASE SAVEPOINT lock_retry`);
      return rows;
    } catch (err) {
      if (!isLockTimeout(err)) throw err;
      await tx.execute(sql`ROLLBACK TO SAVEPOINT lock_retry`);
      if (attempt >= retry.attempts) return null;
      await sleep(retry.pauseMs * attempt);
    }
  }
}

/** Bounded waits for a connector deletion's locks: about a second of stall at most per try. */
const DELETE_RETRY: TLockRetry = { lockTimeoutMs: 1_000, attempts: 5, pauseMs: 500 };

/**
 * Empties the connector's own partitions, if it has any (its first snapshot was large), before
 * the connector is deleted: the foreign key's cascade would otherwise delete their rows one by
 * one. TRUNCATE locks only those partitions (ACCESS EXCLUSIVE, which every reader of the parent
 * that cannot leave them out waits for) and commits at once. Returns the tables emptied, or null
 * when their lock could not be had (a scan of the connector still writing, say).
 */
export async function emptyConnectorPartitions(db: Db, connectorId: string): Promise<number | null> {
  const [own] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE c.relname = workspace_partition_name('workspace_files', ${connectorId})`,
  );
  if (!own?.n) return 0;
  return db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const done = await withLockRetry<{ n: number }>(
      tx,
      sql`SELECT workspace_partition_truncate(${connectorId}) AS n`,
      DELETE_RETRY,
    );
    return done === null ? null : (done[0]?.n ?? 0);
  });
}

/**
 * Drops the partitions of connectors that no longer exist. Dropping a partition locks its parent
 * exclusively (every scan and reader of the store waits, and it waits for every running scan), so
 * this only tries, briefly, and leaves them for the next sweep otherwise (they are empty).
 * Returns the tables dropped.
 */
export async function sweepConnectorPartitions(db: Db): Promise<number> {
  return db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const rows = await withLockRetry<{ n: number }>(tx, sql`SELECT workspace_partition_sweep() AS n`, {
      lockTimeoutMs: 500,
      attempts: 3,
      pauseMs: 500,
    });
    return rows?.[0]?.n ?? 0;
  });
}

/** Tables the service gathers statistics of after a large write (`posture_analyze` in SQL). */
export type TAnalyzedTable =
  | TPartitionedTable
  | "workspace_users"
  | "workspace_drives"
  | "flow_nodes"
  | "flow_edges"
  | "findings"
  | "oauth_grants";

/**
 * After a write of `written` of the connector's `rows` rows: ANALYZE the table (a partitioned one:
 * the connector's own partition, or the DEFAULT one) when they are more than a tenth of the
 * connector's rows and of the table's (autovacuum's threshold, with a floor of 1,000 that keeps
 * small tenants' scans from analyzing), through a function of the owner's, since the service's
 * role may not analyze tables it does not own. Returns whether it did.
 */
export async function analyzeAfterWrite(
  db: Db,
  table: TAnalyzedTable,
  scope: { connectorId: string | null; written: number; rows: number },
): Promise<boolean> {
  if (scope.written <= Math.max(1_000, scope.rows / 10)) return false;
  const [row] = await queryRows<{ analyzed: boolean }>(
    db,
    sql`SELECT posture_analyze(${table}, ${scope.connectorId}, ${scope.written}) AS analyzed`,
  );
  return row?.analyzed === true;
}
