import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { BoundPool } from "./bounded-pool";
import type { Db } from "./client";
import { arrayLiteral } from "./upsert";

/**
 * The node-postgres connection behind a Db: the transaction's own client inside a transaction,
 * the pool outside one; null on PGlite (the embedded default), which has no COPY FROM STDIN
 * stream. Drizzle keeps it on the session of the database or transaction object.
 */
export function pgClientOf(db: Db): pg.Pool | pg.ClientBase | null {
  const session = (db as unknown as { session?: { client?: unknown } }).session?.client;
  // A bounded view (a request's Db): COPY takes a connection of the pool itself.
  const client = session instanceof BoundPool ? session.pool : session;
  return client instanceof pg.Pool || client instanceof pg.Client ? client : null;
}

/** Whether `db` is a node-postgres transaction (one connection), not a pool or PGlite. */
export function isPgTransaction(db: Db): boolean {
  const client = pgClientOf(db);
  return client !== null && !(client instanceof pg.Pool);
}

/** Whether `copyRows` can load into this database (node-postgres, not PGlite). */
export function canCopy(db: Db): boolean {
  return pgClientOf(db) !== null;
}

// COPY's text format: a tab between fields, a newline after each row, `\N` for NULL; a backslash,
// tab, newline or carriage return inside a value is escaped with a backslash.
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const escapeCopy = (s: string) =>
  COPY_SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c] ?? c) : s;

/**
 * One value in COPY's text format: strings as they are (escaped), numbers and bigints as digits,
 * booleans `t`/`f`, dates as ISO strings, arrays as PostgreSQL array literals, other objects as
 * JSON (for json/jsonb columns); null and undefined as NULL.
 */
export function copyField(v: unknown): string {
  if (v === null || v === undefined) return "\\N";
  if (typeof v === "string") return escapeCopy(v);
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (typeof v === "boolean") return v ? "t" : "f";
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return escapeCopy(arrayLiteral(v));
  return escapeCopy(JSON.stringify(v));
}

// Rows per chunk written to the socket: large enough that the stream's per-write cost vanishes,
// small enough that a batch is never held twice as one string.
const CHUNK_ROWS = 500;

function* copyText(rows: Iterable<readonly unknown[]>, width: number): Generator<string> {
  let chunk: string[] = [];
  for (const row of rows) {
    const fields = new Array<string>(width);
    for (let i = 0; i < width; i++) fields[i] = copyField(row[i]);
    chunk.push(fields.join("\t"));
    if (chunk.length >= CHUNK_ROWS) {
      yield `${chunk.join("\n")}\n`;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield `${chunk.join("\n")}\n`;
}

/**
 * Loads rows with `COPY table (columns) FROM STDIN`: no statement to parse per batch, no array
 * parameters to build and unnest, the rows streamed in PostgreSQL's own text format. `rows[r][i]`
 * is row r's value of `columns[i]`. Inside a transaction it runs on the transaction's connection
 * (so it commits or rolls back with it); on a pool, on a connection of its own. node-postgres only
 * (`canCopy`). Returns the rows loaded.
 */
export async function copyRows(
  db: Db,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]>,
): Promise<number> {
  const client = pgClientOf(db);
  if (!client) throw new Error("COPY FROM STDIN needs node-postgres (PGlite has no COPY stream)");
  const names = columns.map((c) => `"${c}"`).join(", ");
  const statement = `COPY ${quoteTable(table)} (${names}) FROM STDIN`;
  const run = async (c: pg.ClientBase) => {
    const stream = c.query(copyFrom(statement));
    await pipeline(Readable.from(copyText(rows, columns.length)), stream);
    return stream.rowCount;
  };
  if (client instanceof pg.Pool) {
    // The text is built before a connection is taken, so the pool's connection is held only for
    // the transfer and PostgreSQL's work, as long as an INSERT of the same rows would hold it.
    const chunks = [...copyText(rows, columns.length)];
    const c = await client.connect();
    try {
      const stream = c.query(copyFrom(statement));
      await pipeline(Readable.from(chunks), stream);
      return stream.rowCount;
    } finally {
      c.release();
    }
  }
  return run(client);
}

/** `"name"`, or `"schema"."name"` for a qualified one. */
function quoteTable(table: string): string {
  return table
    .split(".")
    .map((p) => `"${p.replace(/"/g, '""')}"`)
    .join(".");
}
