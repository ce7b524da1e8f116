import { randomBytes } from "node:crypto";
import pg from "pg";
import { createDb, type DbHandle } from "./client";

// Each test file gets a database of its own on the real PostgreSQL server, migrated from the
// committed migrations, and dropped afterwards: files run in parallel without seeing each other.
export const TEST_POSTGRES_URL =
  process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export type TestDb = DbHandle & { url: string; drop: () => Promise<void> };

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createTestDb(): Promise<TestDb> {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(TEST_POSTGRES_URL, name);
  const handle = createDb({ databaseUrl: url, poolSize: 5 });
  await handle.migrate();
  return {
    ...handle,
    url,
    drop: async () => {
      await handle.close();
      const c = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
