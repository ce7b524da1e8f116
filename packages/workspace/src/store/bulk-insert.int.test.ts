import { sql } from "drizzle-orm";
import { createDb, createEmbeddedDb, queryRows, type Db, type DbHandle } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bulkInsert, type TColumn } from "./bulk-insert";

// bulkInsert takes COPY on node-postgres and the array insert on PGlite: both must store exactly
// the same rows, including a first load that meets a row twice (a page read twice), a load into
// a table the connector already has rows in, and computed columns.

const COLUMNS: readonly TColumn[] = [
  ["id", "text"],
  ["connector_id", "text"],
  ["v", "text"],
  ["n", "int"],
  ["_tag", "text"],
];
const COMPUTED: Array<[string, string]> = [
  ["tags", `CASE WHEN u."_tag" IS NULL THEN '{}'::text[] ELSE ARRAY[u."_tag"] END`],
];
const PLAIN = COLUMNS.slice(0, 4);
const TABLE = `CREATE TABLE bulk_probe (id text PRIMARY KEY, connector_id text NOT NULL, v text, n int, tags text[] NOT NULL DEFAULT '{}')`;

let pgDb: TestDb;
let embedded: DbHandle;
beforeAll(async () => {
  [pgDb, embedded] = await Promise.all([createTestDb(), createEmbeddedDb()]);
  await pgDb.db.execute(sql.raw(TABLE));
  await embedded.db.execute(sql.raw(TABLE));
});
afterAll(async () => {
  await pgDb?.drop();
  await embedded?.close();
});

const stored = (db: Db, connectorId: string) =>
  queryRows<{ id: string; v: string | null; n: number | null; tags: string[] }>(
    db,
    sql`SELECT id, v, n, tags FROM bulk_probe WHERE connector_id = ${connectorId} ORDER BY id`,
  );

describe.each([
  ["node-postgres (COPY)", () => pgDb.db],
  ["PGlite (array insert)", () => embedded.db],
])("bulkInsert on %s", (_, dbOf) => {
  it("a first load stores every row once, a row met twice as its last version", async () => {
    const db = dbOf();
    const c = `con_first_${Math.random().toString(36).slice(2)}`;
    const batch1 = [
      ["a", c, "tab\there", 1, "Confidential"],
      ["b", c, null, 2, null],
    ];
    const batch2 = [
      ["c", c, "back\\slash", 3, null],
      ["a", c, "a again", 4, "Public"],
    ];
    let written = 0;
    await db.transaction(async (tx) => {
      written += await bulkInsert(tx, "bulk_probe", COLUMNS, batch1, { computed: COMPUTED, upsert: "all" });
      written += await bulkInsert(tx, "bulk_probe", COLUMNS, batch2, { computed: COMPUTED, upsert: "all" });
    });
    expect(written).toBe(4);
    expect(await stored(db, c)).toEqual([
      { id: "a", v: "a again", n: 4, tags: ["Public"] },
      { id: "b", v: null, n: 2, tags: [] },
      { id: "c", v: "back\\slash", n: 3, tags: [] },
    ]);
  });

  it("an `all` load into a table the connector has rows in upserts them", async () => {
    const db = dbOf();
    const c = `con_again_${Math.random().toString(36).slice(2)}`;
    await db.transaction((tx) =>
      bulkInsert(tx, "bulk_probe", PLAIN, [["x", c, "one", 1]], { upsert: "all" }),
    );
    await db.transaction(async (tx) => {
      await bulkInsert(tx, "bulk_probe", PLAIN, [["x", c, "two", 2]], { upsert: "all" });
      await bulkInsert(tx, "bulk_probe", PLAIN, [["y", c, "new", 3]], { upsert: "all" });
    });
    expect(await stored(db, c)).toEqual([
      { id: "x", v: "two", n: 2, tags: [] },
      { id: "y", v: "new", n: 3, tags: [] },
    ]);
  });

  it("plain inserts, with and without computed columns, in and outside a transaction", async () => {
    const db = dbOf();
    const c = `con_plain_${Math.random().toString(36).slice(2)}`;
    expect(await bulkInsert(db, "bulk_probe", PLAIN, [["p1", c, "x", 1]])).toBe(1);
    expect(
      await bulkInsert(db, "bulk_probe", COLUMNS, [["p2", c, "y", 2, "Internal"]], { computed: COMPUTED }),
    ).toBe(1);
    await db.transaction(async (tx) => {
      // Twice in one transaction: the staging table is reused.
      for (const id of ["p3", "p4"])
        expect(
          await bulkInsert(tx, "bulk_probe", COLUMNS, [[id, c, id, 3, null]], { computed: COMPUTED }),
        ).toBe(1);
    });
    expect(await stored(db, c)).toEqual([
      { id: "p1", v: "x", n: 1, tags: [] },
      { id: "p2", v: "y", n: 2, tags: ["Internal"] },
      { id: "p3", v: "p3", n: 3, tags: [] },
      { id: "p4", v: "p4", n: 3, tags: [] },
    ]);
    // A plain insert of an existing id is refused, as an INSERT is.
    await expect(bulkInsert(db, "bulk_probe", PLAIN, [["p1", c, "dup", 9]])).rejects.toThrow();
  });

  it("a large first load: thousands of rows, a few met twice, none lost", async () => {
    const db = dbOf();
    const c = `con_large_${Math.random().toString(36).slice(2)}`;
    const rows = Array.from({ length: 6_000 }, (_, i) => [`r${i}`, c, `v${i}`, i, i % 3 === 0 ? "L" : null]);
    await db.transaction(async (tx) => {
      for (let i = 0; i < rows.length; i += 2_000)
        await bulkInsert(tx, "bulk_probe", COLUMNS, rows.slice(i, i + 2_000), {
          computed: COMPUTED,
          upsert: "all",
        });
      // Re-read: the first 500 again, changed.
      await bulkInsert(
        tx,
        "bulk_probe",
        COLUMNS,
        rows.slice(0, 500).map((r) => [r[0], c, "re-read", r[3], null]),
        { computed: COMPUTED, upsert: "all" },
      );
    });
    const got = await stored(db, c);
    expect(got).toHaveLength(6_000);
    expect(got.filter((r) => r.v === "re-read")).toHaveLength(500);
    expect(got.filter((r) => r.tags.length === 1)).toHaveLength(
      rows.slice(500).filter((r) => r[4] === "L").length,
    );
  });
});

describe("bulkInsert's statements on node-postgres", () => {
  it("a first load's new rows go by COPY, a repeated one by the array upsert, a changed-rows load never by COPY", async () => {
    const sent: string[] = [];
    const handle = createDb({ databaseUrl: pgDb.url, poolSize: 1, onStatement: (t) => sent.push(t) });
    try {
      const c = `con_statements_${Math.random().toString(36).slice(2)}`;
      await handle.db.transaction(async (tx) => {
        await bulkInsert(tx, "bulk_probe", PLAIN, [["s1", c, "a", 1]], { upsert: "all" });
        await bulkInsert(tx, "bulk_probe", PLAIN, [["s1", c, "b", 2]], { upsert: "all" });
      });
      expect(sent.filter((t) => t.startsWith("COPY "))).toEqual([
        'COPY "bulk_probe" ("id", "connector_id", "v", "n") FROM STDIN',
      ]);
      expect(sent.filter((t) => t.includes("ON CONFLICT (id) DO UPDATE"))).toHaveLength(1);
      sent.length = 0;
      await handle.db.transaction((tx) =>
        bulkInsert(tx, "bulk_probe", PLAIN, [["s1", c, "c", 3]], { upsert: "changed" }),
      );
      expect(sent.some((t) => t.startsWith("COPY "))).toBe(false);
      expect(await stored(pgDb.db, c)).toEqual([{ id: "s1", v: "c", n: 3, tags: [] }]);
    } finally {
      await handle.close();
    }
  });
});
