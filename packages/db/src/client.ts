import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { sql, type SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import {
  BoundPool,
  boundedClientClass,
  CLIENT_TIMEOUT_MARGIN_MS,
  resetBoundOnRelease,
  type TQueryBound,
} from "./bounded-pool";
import { acquireDataDirLock } from "./data-dir-lock";
import { createGate, gatedClient } from "./embedded-gate";
import * as schema from "./schema";

export type Schema = typeof schema;
// Both drivers produce this: services never know which one they run on.
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export type DbHandle = {
  db: Db;
  kind: "postgres" | "pglite";
  migrate: () => Promise<void>;
  ping: () => Promise<void>;
  /**
   * The same database under another bound (interactive requests: `requestBound`): the same pool
   * and connections, each statement bounded by `bound` on the server and on the client. PGlite
   * runs in this process, cannot freeze apart from it and has one connection: there the view's
   * statements go ahead of background work and give up (DatabaseBusyError, 503) when what runs
   * holds the database past `bound.queryTimeoutMs` (embedded-gate.ts).
   */
  withBound: (bound: TQueryBound) => Db;
  /** The embedded database's queue (PGlite only): what runs and who waits. */
  gateStats?: () => { running: boolean; interactive: number; background: number };
  /** Connection pool occupancy (node-postgres only), for the metrics endpoint. */
  poolStats?: () => { total: number; idle: number; waiting: number };
  close: () => Promise<void>;
};

// An arbitrary constant naming the migration lock in pg_advisory_lock's key space.
const MIGRATION_LOCK = 7_270_001;

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../drizzle", import.meta.url));

/** Every statement is cancelled past this unless its transaction raises it (`allowLongStatements`). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
/**
 * A request waits at most this long for a connection: with the database unreachable it fails
 * (503) well within two seconds instead of queueing behind a dead server.
 */
export const CONNECT_TIMEOUT_MS = 1_500;

export type DbOptions = {
  databaseUrl?: string;
  dataDir?: string;
  poolSize?: number;
  /** `statement_timeout` of every pooled session; 0 disables it. */
  statementTimeoutMs?: number;
  /**
   * The client-side bound of every query (ms): past it the connection is dropped and the query
   * fails (503). Default: the statement timeout plus CLIENT_TIMEOUT_MARGIN_MS; 0 disables it.
   */
  queryTimeoutMs?: number;
  /** The owner role's URL: migrations run with it, the service with `databaseUrl` (an app role). */
  migrationDatabaseUrl?: string;
};

/** PostgreSQL over a connection pool (DATABASE_URL). */
export function createDb(opts: {
  databaseUrl: string;
  migrationDatabaseUrl?: string | undefined;
  poolSize?: number;
  statementTimeoutMs?: number;
  queryTimeoutMs?: number;
  /** Sees the text of every statement sent (begin and commit included): for tests that count them. */
  onStatement?: (text: string) => void;
  /** How long a checkout waits for a connection (default CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}): DbHandle {
  const statementTimeoutMs = opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const queryTimeoutMs =
    opts.queryTimeoutMs ?? (statementTimeoutMs > 0 ? statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS : 0);
  const pool = new pg.Pool({
    Client: boundedClientClass(
      statementTimeoutMs,
      queryTimeoutMs,
      opts.onStatement,
    ) as unknown as new () => pg.ClientBase,
    connectionString: opts.databaseUrl,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    // Sent as a startup parameter: it bounds every query, including ones a runaway plan would
    // keep running long after its client gave up.
    statement_timeout: statementTimeoutMs,
    // A dead peer (cable cut, host gone) is noticed by TCP keepalive instead of never.
    keepAlive: true,
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  resetBoundOnRelease(pool);
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  // One drizzle instance per bound: `prepared` statements are cached per Db.
  const views = new Map<string, Db>();
  const withBound = (bound: TQueryBound): Db => {
    const key = `${bound.statementTimeoutMs}/${bound.queryTimeoutMs}`;
    let view = views.get(key);
    if (!view) {
      view = drizzlePg(new BoundPool(pool, bound) as unknown as pg.Pool, { schema }) as unknown as Db;
      views.set(key, view);
    }
    return view;
  };
  return {
    db,
    kind: "postgres",
    withBound,
    migrate: async () => {
      // Replicas starting together take turns: the first applies the migrations, the rest find
      // them applied. The lock is held on one connection for the whole run.
      // With a migration URL the owner role applies them over a connection of its own; the
      // service's role (a member of posture_app) could not create or alter tables anyway.
      const owner = opts.migrationDatabaseUrl
        ? new pg.Client({ connectionString: opts.migrationDatabaseUrl, connectionTimeoutMillis: 5_000 })
        : null;
      if (owner) await owner.connect();
      const client = owner ?? (await pool.connect());
      try {
        // A migration may rewrite a large table: no statement timeout for this session.
        await client.query("set statement_timeout = 0");
        await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
        await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
        // The session's timeout was changed: do not hand it back to the pool.
        if (owner) await owner.end();
        else (client as pg.PoolClient).release(true);
      }
    },
    ping: async () => {
      await pool.query("select 1");
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}

/**
 * The embedded default: PGlite in `dataDir` (in memory without one). Loaded on demand, so a
 * server deployment never pays for the WebAssembly PostgreSQL it does not use. A folder is held
 * by one process at a time (data-dir-lock.ts): a second opener gets DataDirInUseError.
 */
export async function createEmbeddedDb(dataDir = "memory://"): Promise<DbHandle> {
  // Refused at once, before loading PGlite, when another process holds the folder.
  const lock = dataDir.includes("://") ? null : acquireDataDirLock(dataDir);
  try {
    return await openPglite(dataDir, () => lock?.release());
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function openPglite(dataDir: string, release: () => void): Promise<DbHandle> {
  const [{ PGlite }, { drizzle: drizzlePglite }, { migrate: migratePglite }, { pg_trgm }] = await Promise.all(
    [
      import("@electric-sql/pglite"),
      import("drizzle-orm/pglite"),
      import("drizzle-orm/pglite/migrator"),
      // Trigram indexes serve the inventory search (migration 0008 creates the extension).
      import("@electric-sql/pglite/contrib/pg_trgm"),
    ],
  );
  if (!dataDir.includes("://")) mkdirSync(dataDir, { recursive: true });
  const client = new PGlite(dataDir, { extensions: { pg_trgm } });
  // One statement or transaction at a time, as PGlite runs them; interactive requests (the
  // bounded view) go first and give up past their bound instead of waiting behind a job.
  const gate = createGate();
  const db = drizzlePglite(gatedClient(client, gate, { interactive: false, waitMs: 0 }), {
    schema,
  }) as unknown as Db;
  const bounded = new Map<number, Db>();
  const withBound = (bound: TQueryBound): Db => {
    let view = bounded.get(bound.queryTimeoutMs);
    if (!view) {
      view = drizzlePglite(gatedClient(client, gate, { interactive: true, waitMs: bound.queryTimeoutMs }), {
        schema,
      }) as unknown as Db;
      bounded.set(bound.queryTimeoutMs, view);
    }
    return view;
  };
  return {
    db,
    kind: "pglite",
    withBound,
    migrate: () => migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER }),
    // Work running through the gate is the database answering: readiness does not wait behind it.
    ping: async () => {
      if (gate.stats().running) return;
      await gate.run(() => client.query("select 1"), { interactive: true, waitMs: CONNECT_TIMEOUT_MS });
    },
    gateStats: gate.stats,
    close: async () => {
      try {
        await client.close();
      } finally {
        release();
      }
    },
  };
}

/** DATABASE_URL when given, else the embedded database in `dataDir`. */
export function openDb(opts: DbOptions): Promise<DbHandle> {
  if (opts.databaseUrl)
    return Promise.resolve(
      createDb({
        databaseUrl: opts.databaseUrl,
        migrationDatabaseUrl: opts.migrationDatabaseUrl,
        poolSize: opts.poolSize,
        statementTimeoutMs: opts.statementTimeoutMs,
        queryTimeoutMs: opts.queryTimeoutMs,
      }),
    );
  return createEmbeddedDb(opts.dataDir);
}

/** Raw SQL returning rows, the same on both drivers (each answers with `{ rows }`). */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const res = (await db.execute(query)) as unknown as { rows: T[] };
  return res.rows;
}

/**
 * The statement bound of background jobs' known long statements (persisting a large scan,
 * re-summing a large tenant's activity): still a bound, far above a request's.
 */
export const JOB_STATEMENT_TIMEOUT_MS = 120_000;

/**
 * Raises `statement_timeout` for the rest of the current transaction only: for known long writes
 * (persisting a large scan) that must not be cut off by the per-statement bound of requests.
 */
export function allowLongStatements(ms: number): SQL {
  return sql.raw(`set local statement_timeout = ${Math.max(0, Math.floor(ms))}`);
}

/** A unique violation (SQLSTATE 23505), as node-postgres or PGlite raises it, or Drizzle wraps it. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } } | null;
  return e?.code === "23505" || e?.cause?.code === "23505";
}
