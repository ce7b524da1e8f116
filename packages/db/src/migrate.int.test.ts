import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createDb, MIGRATIONS_FOLDER } from "./client";
import { bareTestDatabase } from "./testing";

const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
  entries: unknown[];
};

// A bare database, not yet migrated: what a first deployment's replicas all see at once.
const bare = bareTestDatabase("test_migrate");
const url = bare.url;

beforeAll(() => bare.create());
afterAll(() => bare.drop());

describe("migrate", () => {
  it("applies each migration once when several replicas start together", async () => {
    const replicas = Array.from({ length: 4 }, () => createDb({ databaseUrl: url, poolSize: 2 }));
    try {
      await Promise.all(replicas.map((r) => r.migrate()));
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const applied = await c.query<{ n: string }>("select count(*) as n from drizzle.__drizzle_migrations");
      const triggers = await c.query<{ n: string }>(
        "select count(*) as n from pg_trigger where tgname = 'audit_log_chain'",
      );
      expect(Number(applied.rows[0]?.n)).toBe(journal.entries.length);
      expect(Number(triggers.rows[0]?.n)).toBe(1);
    } finally {
      await c.end();
    }
  });
});
