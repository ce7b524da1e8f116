import { sql } from "drizzle-orm";
import {
  canCopy,
  CONNECTOR_PARTITIONED,
  copyRows,
  isPgTransaction,
  queryRows,
  unnestRows,
  type Db,
  type TArrayColumn,
} from "@posture/db";

/** A column of a bulk insert: its name and the PostgreSQL array type its values are sent as. */
export type TColumn = TArrayColumn;

export type TBulkOptions = {
  /** Columns computed from the unnested row `u` (inputs named `_…` are not stored themselves). */
  computed?: ReadonlyArray<readonly [name: string, expression: string]>;
  /**
   * Upsert on `id`. `changed`: a row that exists is rewritten only when a stored column differs,
   * so an unchanged row costs an index probe and no write (no new tuple, no lock, no WAL, no index
   * churn). `all`: no probe, for loads where (almost) nothing exists yet (a connector's first
   * snapshot).
   */
  upsert?: "changed" | "all";
  /**
   * Load with COPY where the database allows it (node-postgres; default true): plain inserts and
   * `all` loads. PGlite, `changed` upserts and `copy: false` use the array insert.
   */
  copy?: boolean;
};

/**
 * Inserts many rows in one round trip or stream. On node-postgres, plain inserts and `all` loads
 * go through COPY (see `copyInsert`); otherwise one statement with one array parameter per column,
 * unnested server-side, whose text depends only on the table and columns (unlike a VALUES list
 * with a parameter per cell). Returns the rows written (inserted or changed).
 */
export async function bulkInsert(
  db: Db,
  table: string,
  columns: readonly TColumn[],
  rows: readonly unknown[][],
  opts: TBulkOptions = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  if (opts.copy !== false && opts.upsert !== "changed" && canCopy(db)) {
    const copied = await copyInsert(db, table, columns, rows, opts);
    if (copied !== null) return copied;
  }
  return unnestInsert(db, table, columns, rows, opts);
}

async function unnestInsert(
  db: Db,
  table: string,
  columns: readonly TColumn[],
  rows: readonly unknown[][],
  opts: TBulkOptions,
): Promise<number> {
  const computed = opts.computed ?? [];
  const stored = storedNames(columns, opts);
  const names = stored.map((n) => `"${n}"`).join(", ");
  const unnest = unnestRows(columns, rows);
  if (!opts.upsert) {
    const result = await db.execute(
      sql`INSERT INTO ${sql.raw(`"${table}"`)} (${sql.raw(names)}) SELECT ${sql.raw(selects(columns, opts))} FROM ${unnest}`,
    );
    return affected(result);
  }
  // Rows identical to the stored ones are filtered out by a read-only probe first: ON CONFLICT
  // DO UPDATE would lock (and so write) every conflicting row even when it changes nothing.
  const updated = stored.filter((n) => n !== "id" && n !== "connector_id");
  const cols = (alias: string) => updated.map((n) => `${alias}."${n}"`).join(", ");
  const set = updated.map((n) => `"${n}" = excluded."${n}"`).join(", ");
  const aliased = [
    ...inputNames(columns).map((n) => `u."${n}" AS "${n}"`),
    ...computed.map(([n, e]) => `${e} AS "${n}"`),
  ].join(", ");
  // Tables partitioned by connector are keyed by (id, connector_id): the probe names the
  // connector too, as a constant when the batch has one (always, from the store's writers), so it
  // reads one partition. Through a partitioned table the planner cannot tell that a key matches one
  // row: with NOT EXISTS it may hash every row of the connector per batch (measured on a fresh
  // DEFAULT partition without statistics: 5× the CPU of an unchanged 100k rescan). A correlated
  // subquery with LIMIT 1 cannot be turned into a hash join: it probes the primary key per row.
  const keyed = (CONNECTOR_PARTITIONED as readonly string[]).includes(table);
  const connectorAt = columns.findIndex(([n]) => n === "connector_id");
  const connector = connectorAt >= 0 ? rows[0]?.[connectorAt] : undefined;
  const oneConnector =
    typeof connector === "string" && rows.every((r) => r[connectorAt] === connector) ? connector : null;
  const same = sql.raw(`(${cols("x")}) IS NOT DISTINCT FROM (${cols("v")})`);
  const from = sql.raw(`"${table}"`);
  const probe =
    opts.upsert !== "changed"
      ? sql``
      : !keyed
        ? sql`WHERE NOT EXISTS (SELECT 1 FROM ${from} x WHERE x.id = v.id AND ${same})`
        : sql`WHERE (SELECT ${same} FROM ${from} x WHERE x.id = v.id AND x.connector_id = ${
            oneConnector ?? sql`v.connector_id`
          } LIMIT 1) IS NOT TRUE`;
  const result = await db.execute(sql`
    WITH v AS (SELECT ${sql.raw(aliased)} FROM ${unnest})
    INSERT INTO ${sql.raw(`"${table}"`)} AS t (${sql.raw(names)})
    SELECT ${sql.raw(stored.map((n) => `v."${n}"`).join(", "))} FROM v ${probe}
    ON CONFLICT (${sql.raw(keyed ? "id, connector_id" : "id")}) DO UPDATE SET ${sql.raw(set)}`);
  return affected(result);
}

/** Input columns stored as they are (not `_…`). */
const inputNames = (columns: readonly TColumn[]) => columns.map(([n]) => n).filter((n) => !n.startsWith("_"));

/** The stored columns: inputs (without `_…`), then computed ones. */
const storedNames = (columns: readonly TColumn[], opts: TBulkOptions) => [
  ...inputNames(columns),
  ...(opts.computed ?? []).map(([n]) => n),
];

/** The stored columns' values from the row `u`. */
const selects = (columns: readonly TColumn[], opts: TBulkOptions) =>
  [...inputNames(columns).map((n) => `u."${n}"`), ...(opts.computed ?? []).map(([, e]) => e)].join(", ");

/**
 * The COPY path (node-postgres). Measured on the demo workspace's rows (docs/benchmarks.md, issue
 * 15): COPY costs PostgreSQL about a fifth less CPU than the array insert, and an `all` load's
 * ON CONFLICT another tenth. So:
 * - rows go in plainly. An `all` load does so only into a table that held no row of the rows'
 *   connector when the transaction first loaded it (probed once; the snapshot holds the
 *   connector's lock, and its ids are the connector's own), and only rows whose id this
 *   transaction has not (possibly) written before, by a Bloom filter of the ids it loaded: a row
 *   it may have written (a page read twice, or the filter's rare false positive) takes the array
 *   upsert, and so does every row of a table the connector already had rows in;
 * - without computed columns, straight into the table by COPY;
 * - with computed columns, by COPY into a temporary staging table of the inputs (no WAL, no
 *   index), then `INSERT … SELECT` the computed row from it, then the staging table emptied.
 *   Staging needs a transaction (a temporary table lives in its session): outside one, computed
 *   rows take the array insert (returns null).
 * A COPY is one statement: a failure leaves nothing of its batch, and fails the transaction.
 */
async function copyInsert(
  db: Db,
  table: string,
  columns: readonly TColumn[],
  rows: readonly unknown[][],
  opts: TBulkOptions,
): Promise<number | null> {
  const inTransaction = isPgTransaction(db);
  const staged = (opts.computed ?? []).length > 0;
  if (staged && !inTransaction) return null;
  let plain = rows;
  const again: unknown[][] = [];
  if (opts.upsert === "all") {
    // Outside a transaction there is no "this load": every row could exist; the array upsert.
    if (!inTransaction) return null;
    const seen = await firstLoad(db, table, columns, rows);
    if (!seen) return null;
    const fresh: unknown[][] = [];
    for (const row of rows) (seen.addIfNew(String(row[0])) ? fresh : again).push(row);
    plain = fresh;
  }
  let written = 0;
  if (plain.length > 0) {
    if (!staged) {
      const stored = inputNames(columns);
      const at = columns.map(([n], i) => [n, i] as const).filter(([n]) => !n.startsWith("_"));
      written += await copyRows(
        db,
        table,
        stored,
        plain.map((r) => at.map(([, i]) => r[i])),
      );
    } else {
      const staging = await stagingTable(db, table, columns);
      await copyRows(
        db,
        staging,
        columns.map(([n]) => n),
        plain,
      );
      const names = storedNames(columns, opts)
        .map((n) => `"${n}"`)
        .join(", ");
      written += affected(
        await db.execute(
          sql.raw(`INSERT INTO "${table}" (${names}) SELECT ${selects(columns, opts)} FROM "${staging}" u`),
        ),
      );
      await db.execute(sql.raw(`TRUNCATE "${staging}"`));
    }
  }
  if (again.length > 0) written += await unnestInsert(db, table, columns, again, opts);
  return written;
}

/** The transaction's temporary staging table for `table`'s inputs, created on first use. */
const stagingTables = new WeakMap<Db, Set<string>>();
async function stagingTable(db: Db, table: string, columns: readonly TColumn[]): Promise<string> {
  const name = `bulk_${table}`;
  let created = stagingTables.get(db);
  if (!created) {
    created = new Set();
    stagingTables.set(db, created);
  }
  if (!created.has(table)) {
    const defs = columns.map(([n, type]) => `"${n}" ${type}`).join(", ");
    await db.execute(sql.raw(`CREATE TEMP TABLE "${name}" (${defs}) ON COMMIT DROP`));
    created.add(table);
  }
  return name;
}

/**
 * Ids an `all` load has written, per transaction and table, as a Bloom filter: 2 MB whatever the
 * load's size (a million-file snapshot's 1.4 million permissions: under 1 % false positives, each
 * of which costs only the array upsert), never a false negative.
 */
export class IdFilter {
  private static readonly BITS = 1 << 24;
  private readonly words = new Uint32Array(IdFilter.BITS >>> 5);

  /** Records `id`; true when it was certainly not recorded before. */
  addIfNew(id: string): boolean {
    // Two FNV-1a hashes of the id, combined into four probe positions (double hashing).
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193 ^ id.length;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    }
    h2 = (h2 ^ (h2 >>> 15)) | 1;
    let fresh = false;
    for (let k = 0; k < 4; k++) {
      const bit = (h1 + Math.imul(k, h2)) & (IdFilter.BITS - 1);
      const word = bit >>> 5;
      const mask = 1 << (bit & 31);
      if (((this.words[word] ?? 0) & mask) === 0) {
        fresh = true;
        this.words[word] = (this.words[word] ?? 0) | mask;
      }
    }
    return fresh;
  }
}

/**
 * The ids filter of the transaction's first load of `table` for the rows' connector, or null when
 * this is no first load: the table already held rows of the connector when first asked, the rows
 * have no `connector_id` column, or they belong to several connectors.
 */
const loaded = new WeakMap<Db, Map<string, IdFilter | null>>();
async function firstLoad(
  db: Db,
  table: string,
  columns: readonly TColumn[],
  rows: readonly unknown[][],
): Promise<IdFilter | null> {
  const at = columns.findIndex(([n]) => n === "connector_id");
  if (at < 0) return null;
  const connectorId = rows[0]?.[at];
  if (typeof connectorId !== "string" || rows.some((r) => r[at] !== connectorId)) return null;
  let tables = loaded.get(db);
  if (!tables) {
    tables = new Map();
    loaded.set(db, tables);
  }
  const key = `${table}\0${connectorId}`;
  if (!tables.has(key)) {
    const [probe] = await queryRows<{ stored: boolean }>(
      db,
      sql`SELECT EXISTS (SELECT 1 FROM ${sql.raw(`"${table}"`)} WHERE connector_id = ${connectorId}) AS stored`,
    );
    tables.set(key, probe?.stored ? null : new IdFilter());
  }
  return tables.get(key) ?? null;
}

/** Rows a statement touched: node-postgres says `rowCount`, PGlite `affectedRows`. */
export function affected(result: unknown): number {
  const r = result as { rowCount?: number | null; affectedRows?: number };
  return r.rowCount ?? r.affectedRows ?? 0;
}
