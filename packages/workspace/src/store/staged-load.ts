import { sql, type SQL } from "drizzle-orm";
import {
  arrayLiteral,
  canCopy,
  CONNECTOR_PARTITIONED,
  isPgTransaction,
  partitionName,
  queryRows,
  withLockRetry,
  type Db,
  type TLockRetry,
  type TPartitionedTable,
} from "@posture/db";
import { bulkInsert, IdFilter, type TColumn } from "./bulk-insert";

/**
 * Files from which a first snapshot keeps its own partitions (indexes built once, attached);
 * below it the load moves into the DEFAULT partition. `POSTURE_PARTITION_MIN_FILES` overrides it.
 */
export const PARTITION_MIN_FILES = 20_000;

/**
 * Attaching locks the DEFAULT partitions exclusively: it must wait for every transaction that
 * read or wrote them (other connectors' running scans included), and while it waits every new
 * reader of them queues behind it. So each try waits half a second at most, and after the last
 * the load moves its rows into the parents instead (what a small load does: correct, slower).
 */
const ATTACH_RETRY: TLockRetry = { lockTimeoutMs: 500, attempts: 8, pauseMs: 1_000 };

export function partitionMinFiles(): number {
  const env = Number(process.env.POSTURE_PARTITION_MIN_FILES);
  return Number.isInteger(env) && env >= 0 ? env : PARTITION_MIN_FILES;
}

/**
 * A connector's first snapshot, loaded into tables of its own (node-postgres only): the
 * partitioned tables' rows go by COPY into `<table>_p<hash>`, created in the snapshot's
 * transaction with no index, no foreign key and a `CHECK (connector_id = …)`. At the end either
 * (large) their indexes are built once and they are attached as the connector's partitions, or
 * (small) their rows move into the parents (the DEFAULT partition) and they are dropped.
 * Everything happens in the snapshot's transaction: an aborted load leaves no table behind, and
 * readers see nothing of it until the commit, then all of it.
 */
export type TStagedLoad = {
  /** The table this load writes `table`'s rows to (the parent for a table not partitioned). */
  tableOf: (table: string) => string;
  /** Loads rows of a partitioned table (no upsert: rows read twice are removed by `settle`). */
  write: (
    table: TPartitionedTable,
    columns: readonly TColumn[],
    rows: readonly unknown[][],
    computed?: ReadonlyArray<readonly [string, string]>,
  ) => Promise<number>;
  /**
   * Removes rows written twice (a page read again: the last copy stays), then either builds the
   * indexes (`own`: the tables become partitions at `attach`) or moves the rows into the parents
   * and drops the tables.
   */
  settle: (own: boolean) => Promise<void>;
  /**
   * After a `settle` that kept the tables, the sharing items as the finish statements must read
   * them before `attach`: this load's table, and the organization's items (the parent's rows and
   * this load's); undefined when the rows already are in the parents.
   */
  shares: (orgId: string) => { table: string; all: SQL } | undefined;
  /**
   * Attaches the loaded tables as the connector's partitions: the commit's last statement.
   * Returns false when the lock could not be had and the rows were moved into the parents.
   */
  attach: (retry?: TLockRetry) => Promise<boolean>;
};

/** Whether a first snapshot on this transaction can be staged (COPY needs node-postgres). */
export function canStage(tx: Db): boolean {
  return canCopy(tx) && isPgTransaction(tx);
}

/**
 * Opens the load, or returns null when the connector already has partitions of its own (its
 * store emptied by a rescan that found nothing): rows then go through the parents into them.
 */
export async function openStagedLoad(tx: Db, connectorId: string): Promise<TStagedLoad | null> {
  const [existing] = await queryRows<{ own: boolean }>(
    tx,
    sql`SELECT to_regclass(${partitionName("workspace_files", connectorId)}) IS NOT NULL AS own`,
  );
  if (existing?.own) return null;
  await tx.execute(sql`SELECT workspace_partition_create(${connectorId})`);
  const names = new Map<string, string>(CONNECTOR_PARTITIONED.map((t) => [t, partitionName(t, connectorId)]));
  const filters = new Map<string, IdFilter>();
  // Ids the Bloom filter says may have been written before: the only candidates for duplicates.
  const again = new Map<string, Set<string>>();
  let own = false;
  const quoted = (table: string) => sql.raw(`"${names.get(table) ?? table}"`);
  const moveIntoParents = async () => {
    for (const table of CONNECTOR_PARTITIONED)
      await tx.execute(sql`INSERT INTO ${sql.raw(`"${table}"`)} SELECT * FROM ${quoted(table)}`);
    await tx.execute(sql`SELECT workspace_partition_drop(${connectorId})`);
  };
  return {
    tableOf: (table) => names.get(table) ?? table,
    write: async (table, columns, rows, computed) => {
      let filter = filters.get(table);
      if (!filter) {
        filter = new IdFilter();
        filters.set(table, filter);
      }
      for (const row of rows) {
        const id = String(row[0]);
        if (!filter.addIfNew(id)) {
          let ids = again.get(table);
          if (!ids) again.set(table, (ids = new Set()));
          ids.add(id);
        }
      }
      return bulkInsert(tx, names.get(table) ?? table, columns, rows, { computed });
    },
    settle: async (large) => {
      own = large;
      for (const table of CONNECTOR_PARTITIONED) {
        const ids = again.get(table);
        if (!ids || ids.size === 0) continue;
        // Heap order is load order (the table only ever had COPY's appends): the highest ctid
        // of an id is its last copy.
        await tx.execute(sql`
          DELETE FROM ${quoted(table)} a USING (
            SELECT id, max(ctid) AS keep FROM ${quoted(table)}
            WHERE id = ANY(${arrayLiteral([...ids])}::text[]) GROUP BY id HAVING count(*) > 1) d
          WHERE a.id = d.id AND a.ctid <> d.keep`);
      }
      if (large) {
        // One sort per index, in memory for a million rows: the session's default (64 MB) spills.
        await tx.execute(sql`SET LOCAL maintenance_work_mem = '256MB'`);
        await tx.execute(sql`SELECT workspace_partition_index(${connectorId})`);
        return;
      }
      await moveIntoParents();
    },
    shares: (orgId) =>
      own
        ? {
            table: names.get("workspace_shares") ?? "workspace_shares",
            all: sql`(SELECT * FROM workspace_shares WHERE org_id = ${orgId} UNION ALL SELECT * FROM ${quoted("workspace_shares")})`,
          }
        : undefined,
    attach: async (retry = ATTACH_RETRY) => {
      if (!own) return true;
      const attached = await withLockRetry(tx, sql`SELECT workspace_partition_attach(${connectorId})`, retry);
      if (attached !== null) return true;
      await moveIntoParents();
      return false;
    },
  };
}
