import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedDb, queryRows, type DbHandle } from "./client";
import { canCopy, copyField, copyRows } from "./copy";
import { createTestDb, type TestDb } from "./testing";

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
  await db.db.execute(
    sql`CREATE TABLE copy_probe (n int PRIMARY KEY, t text, flag bool, at timestamptz, big bigint, tags text[], doc jsonb)`,
  );
});
afterAll(async () => {
  await db?.drop();
});

const hostile = [
  'say "hi"',
  "back\\slash \\\\ twice",
  "tab\there",
  "line\nbreak",
  "carriage\rreturn",
  "\\N",
  "NULL",
  "",
  " padded ",
  "a,b {braces}",
  "ünïcödé ✓ 𝄞",
  "'single'",
];

describe("copyRows", () => {
  it("round-trips hostile text, NULLs, booleans, times, bigints, arrays and JSON exactly", async () => {
    const at = new Date("2026-11-20T12:34:56.789Z");
    const rows = hostile.map((t, i) => [
      i,
      t,
      i % 2 === 0,
      i === 0 ? null : at,
      9_007_199_254_740_993n,
      [t, null, "x"],
      { t, i },
    ]);
    rows.push([hostile.length, null, null, null, null, [], null]);
    const n = await copyRows(db.db, "copy_probe", ["n", "t", "flag", "at", "big", "tags", "doc"], rows);
    expect(n).toBe(rows.length);
    const stored = await queryRows<{
      n: number;
      t: string | null;
      flag: boolean | null;
      at_ms: number | null;
      big: string | null;
      tags: string[] | null;
      doc: unknown;
    }>(
      db.db,
      sql`SELECT n, t, flag, (extract(epoch FROM at) * 1000)::float8 AS at_ms, big::text AS big, tags, doc FROM copy_probe ORDER BY n`,
    );
    expect(stored).toEqual(
      rows.map(([n, t, flag, when, big, tags, doc]) => ({
        n,
        t,
        flag,
        at_ms: when === null ? null : (when as Date).getTime(),
        big: big === null ? null : String(big),
        tags,
        doc,
      })),
    );
  });

  it("loads on the transaction's connection: rolled back with it, visible to others only at commit", async () => {
    await db.db.execute(sql`TRUNCATE copy_probe`);
    const outside = async () =>
      (await queryRows<{ c: number }>(db.db, sql`SELECT count(*)::int AS c FROM copy_probe`))[0]?.c;
    await expect(
      db.db.transaction(async (tx) => {
        await copyRows(tx, "copy_probe", ["n", "t"], [[1, "a"]]);
        expect(await outside()).toBe(0);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await outside()).toBe(0);
    await db.db.transaction(async (tx) => {
      await copyRows(tx, "copy_probe", ["n", "t"], [[1, "a"]]);
      // Inside the transaction the rows are there, on the same connection as its other statements.
      const inside = await queryRows<{ c: number }>(tx, sql`SELECT count(*)::int AS c FROM copy_probe`);
      expect(inside[0]?.c).toBe(1);
      expect(await outside()).toBe(0);
    });
    expect(await outside()).toBe(1);
  });

  it("fails whole on a unique violation (nothing of the batch is stored) and leaves the pool usable", async () => {
    await db.db.execute(sql`TRUNCATE copy_probe`);
    await copyRows(db.db, "copy_probe", ["n"], [[1]]);
    const err = await copyRows(db.db, "copy_probe", ["n"], [[2], [1]]).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe("23505");
    const ns = await queryRows<{ n: number }>(db.db, sql`SELECT n FROM copy_probe ORDER BY n`);
    expect(ns.map((r) => r.n)).toEqual([1]);
    await copyRows(db.db, "copy_probe", ["n"], [[3]]);
    expect(
      (await queryRows<{ n: number }>(db.db, sql`SELECT n FROM copy_probe ORDER BY n`)).map((r) => r.n),
    ).toEqual([1, 3]);
  });

  it("streams a large load in chunks", async () => {
    await db.db.execute(sql`TRUNCATE copy_probe`);
    const rows = Array.from({ length: 25_001 }, (_, i) => [i, `row ${i}\t${i % 7}`]);
    expect(await copyRows(db.db, "copy_probe", ["n", "t"], rows)).toBe(25_001);
    const [last] = await queryRows<{ t: string }>(db.db, sql`SELECT t FROM copy_probe WHERE n = 25000`);
    expect(last?.t).toBe("row 25000\t3");
  });
});

describe("canCopy", () => {
  let embedded: DbHandle;
  beforeAll(async () => {
    embedded = await createEmbeddedDb();
  });
  afterAll(async () => {
    await embedded?.close();
  });

  it("is true on node-postgres (pool and transaction), false on PGlite", async () => {
    expect(canCopy(db.db)).toBe(true);
    await db.db.transaction(async (tx) => {
      expect(canCopy(tx)).toBe(true);
    });
    expect(canCopy(embedded.db)).toBe(false);
    await embedded.db.transaction(async (tx) => {
      expect(canCopy(tx)).toBe(false);
    });
    await expect(copyRows(embedded.db, "x", ["n"], [[1]])).rejects.toThrow(/node-postgres/);
  });
});

describe("copyField", () => {
  it("writes COPY's text format", () => {
    expect(copyField(null)).toBe("\\N");
    expect(copyField(undefined)).toBe("\\N");
    expect(copyField("a\tb\nc\\d\re")).toBe("a\\tb\\nc\\\\d\\re");
    expect(copyField(true)).toBe("t");
    expect(copyField(false)).toBe("f");
    expect(copyField(12)).toBe("12");
    expect(copyField(new Date("2026-01-02T03:04:05.006Z"))).toBe("2026-01-02T03:04:05.006Z");
    expect(copyField(["a b", null])).toBe('{"a b",NULL}');
    expect(copyField({ a: "x\ty" })).toBe('{"a":"x\\\\ty"}');
  });
});
