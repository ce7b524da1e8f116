import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import * as schema from "./schema";

export type Schema = typeof schema;
// Both drivers produce this: services never know which one they run on.
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export type DbHandle = {
  db: Db;
  kind: "postgres" | "pglite";
  migrate: () => Promise<void>;
  ping: () => Promise<void>;
  close: () => Promise<void>;
};

// An arbitrary constant naming the migration lock in pg_advisory_lock's key space.
const MIGRATION_LOCK = 7_270_001;

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../drizzle", import.meta.url));

export type DbOptions = { databaseUrl?: string; dataDir?: string; poolSize?: number };

/** PostgreSQL over a connection pool (DATABASE_URL). */
export function createDb(opts: { databaseUrl: string; poolSize?: number }): DbHandle {
  const pool = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    migrate: async () => {
      // Replicas starting together take turns: the first applies the migrations, the rest find
      // them applied. The lock is held on one connection for the whole run.
      const client = await pool.connect();
      try {
        await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
        await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
        client.release();
      }
    },
    ping: async () => {
      await pool.query("select 1");
    },
    close: () => pool.end(),
  };
}

/**
 * The embedded default: PGlite in `dataDir` (in memory without one). Loaded on demand, so a
 * server deployment never pays for the WebAssembly PostgreSQL it does not use.
 */
export async function createEmbeddedDb(dataDir = "memory://"): Promise<DbHandle> {
  const [{ PGlite }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("drizzle-orm/pglite"),
    import("drizzle-orm/pglite/migrator"),
  ]);
  if (!dataDir.includes("://")) mkdirSync(dataDir, { recursive: true });
  const client = new PGlite(dataDir);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    migrate: () => migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER }),
    ping: async () => {
      await client.query("select 1");
    },
    close: () => client.close(),
  };
}

/** DATABASE_URL when given, else the embedded database in `dataDir`. */
export function openDb(opts: DbOptions): Promise<DbHandle> {
  if (opts.databaseUrl)
    return Promise.resolve(createDb({ databaseUrl: opts.databaseUrl, poolSize: opts.poolSize }));
  return createEmbeddedDb(opts.dataDir);
}

/** Raw SQL returning rows, the same on both drivers (each answers with `{ rows }`). */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const res = (await db.execute(query)) as unknown as { rows: T[] };
  return res.rows;
}
