import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "./client";
import { createTestDb, type TestDb } from "./testing";
import { arrayLiteral, unnestRows } from "./upsert";

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.drop();
});

describe("array literals for bulk statements", () => {
  it("round-trips hostile text exactly through PostgreSQL", async () => {
    const values = [
      'say "hi"',
      "back\\slash \\\\ twice",
      "a,b",
      "{braces}",
      "NULL",
      "null",
      "NuLl",
      "nullable",
      "",
      " ",
      "two words",
      "trailing\r",
      " padded ",
      "ünïcödé ✓ 𝄞",
      "line\nbreak\ttab",
      null,
      "'single'",
    ];
    const rows = await queryRows<{ v: string | null }>(
      db.db,
      sql`SELECT v FROM unnest(${arrayLiteral(values)}::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n`,
    );
    expect(rows.map((r) => r.v)).toEqual(values);
  });

  it("sends numbers, booleans, dates and missing values as their columns' types", async () => {
    const at = new Date("2026-11-22T10:00:00.123Z");
    const rows = await queryRows<{ n: number | null; b: boolean | null; at: Date | string | null }>(
      db.db,
      sql`SELECT u.n, u.b, u.at FROM ${unnestRows(
        [
          ["n", "int"],
          ["b", "bool"],
          ["at", "timestamptz"],
        ],
        [
          [1, true, at],
          [-2, false, at.toISOString()],
          [undefined, null, null],
        ],
      )}`,
    );
    expect(rows.map((r) => [r.n, r.b, r.at === null ? null : new Date(r.at).toISOString()])).toEqual([
      [1, true, at.toISOString()],
      [-2, false, at.toISOString()],
      [null, null, null],
    ]);
  });
});
