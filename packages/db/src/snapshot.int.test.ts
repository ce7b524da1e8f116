import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { generateDrizzleJson, generateMigration } from "drizzle-kit/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "./client";
import * as schema from "./schema";
import { createTestDb, type TestDb } from "./testing";

/**
 * drizzle-kit diffs the schema in src/schema against the newest snapshot in drizzle/meta: that
 * snapshot must describe what the committed migrations build, or `pnpm db:generate` writes a
 * migration that redoes (or undoes) them. And the schema must name what the migrations created,
 * or a later generated migration would drop a constraint under a name the database does not have.
 */
type TSnapshot = {
  id: string;
  tables: Record<
    string,
    {
      name: string;
      columns: Record<string, { name: string; notNull: boolean }>;
      indexes: Record<string, { name: string }>;
      foreignKeys: Record<string, { name: string }>;
    }
  >;
};

const meta = join(MIGRATIONS_FOLDER, "meta");
const latest = readdirSync(meta)
  .filter((f) => /^\d{4}_snapshot\.json$/.test(f))
  .sort()
  .at(-1);
const snapshot = JSON.parse(readFileSync(join(meta, latest ?? "missing"), "utf8")) as TSnapshot;
const journal = JSON.parse(readFileSync(join(meta, "_journal.json"), "utf8")) as {
  entries: Array<{ idx: number; tag: string }>;
};

describe("drizzle-kit snapshots", () => {
  it("reach the last migration", () => {
    const last = journal.entries.at(-1)?.tag ?? "";
    expect(latest?.slice(0, 4)).toBe(last.slice(0, 4));
  });

  it("match the schema: db:generate has nothing to write", async () => {
    const current = generateDrizzleJson(schema as Record<string, unknown>, snapshot.id);
    const statements = await generateMigration(snapshot as never, current);
    expect(statements).toEqual([]);
  });
});

describe("the schema against a database built by the migrations", () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb();
  });
  afterAll(async () => {
    await db?.drop();
  });

  // Partitions (the DEFAULT partitions of migration 0020, a connector's own) are not in the
  // schema: their parents are.
  const partition = (name: ReturnType<typeof sql>) =>
    sql`SELECT 1 FROM pg_class p WHERE p.relname = ${name} AND p.relispartition`;
  const rows = async <T>(q: ReturnType<typeof sql>) =>
    ((await db.db.execute(q)) as unknown as { rows: T[] }).rows;

  it("has the same tables, columns and nullability", async () => {
    const cols = await rows<{ table_name: string; column_name: string; is_nullable: string }>(sql`
      SELECT table_name, column_name, is_nullable FROM information_schema.columns
      WHERE table_schema = 'public' AND NOT EXISTS (${partition(sql`table_name`)}) ORDER BY 1, 2`);
    const inDb = cols.map(
      (c) => `${c.table_name}.${c.column_name} ${c.is_nullable === "NO" ? "NOT NULL" : ""}`,
    );
    const inSchema = Object.values(snapshot.tables)
      .flatMap((t) =>
        Object.values(t.columns).map((c) => `${t.name}.${c.name} ${c.notNull ? "NOT NULL" : ""}`),
      )
      .sort();
    expect(inDb.sort()).toEqual(inSchema);
  });

  it("names every foreign key and index as the migrations did", async () => {
    const fks = await rows<{ t: string; name: string }>(sql`
      SELECT cl.relname AS t, co.conname AS name FROM pg_constraint co
      JOIN pg_class cl ON cl.oid = co.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
      WHERE co.contype = 'f' AND n.nspname = 'public' AND NOT cl.relispartition`);
    expect(fks.map((f) => `${f.t} ${f.name}`).sort()).toEqual(
      Object.values(snapshot.tables)
        .flatMap((t) => Object.values(t.foreignKeys).map((f) => `${t.name} ${f.name}`))
        .sort(),
    );
    // Indexes of their own (not those PostgreSQL makes for a primary key or unique constraint).
    const indexes = await rows<{ t: string; name: string }>(sql`
      SELECT tablename AS t, indexname AS name FROM pg_indexes i
      WHERE schemaname = 'public' AND NOT EXISTS (${partition(sql`tablename`)}) AND NOT EXISTS (
        SELECT 1 FROM pg_constraint co WHERE co.conname = i.indexname AND co.contype IN ('p', 'u'))`);
    expect(indexes.map((i) => `${i.t} ${i.name}`).sort()).toEqual(
      Object.values(snapshot.tables)
        .flatMap((t) => Object.values(t.indexes).map((i) => `${t.name} ${i.name}`))
        .sort(),
    );
  });
});
