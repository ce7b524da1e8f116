import { rmSync } from "node:fs";
import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "./client";
import { bareTestDatabase, migrationsUpTo } from "./testing";

// Migration 0020 turns the store's three large tables into partitioned ones in place: a database
// with rows in them keeps every row (now in the DEFAULT partitions), every index, and its keys.

const bare = bareTestDatabase("test_partitions");

let c: pg.Client;
beforeAll(async () => {
  await bare.create();
  c = new pg.Client({ connectionString: bare.url });
  await c.connect();
});
afterAll(async () => {
  await c?.end();
  await bare.drop();
});

describe("migration 0020: the store's tables partitioned by connector", () => {
  it("keeps the rows, indexes and keys of a database that has them", async () => {
    const before = migrationsUpTo(19);
    try {
      await migrate(drizzle(c), { migrationsFolder: before });
    } finally {
      rmSync(before, { recursive: true, force: true });
    }
    await c.query(`INSERT INTO organizations (id, name, plan) VALUES ('org_1', 'Org', 'business')`);
    await c.query(`INSERT INTO connectors (id, org_id, type, display_name, mode, config)
      VALUES ('con_1', 'org_1', 'google_workspace', 'Drive', 'demo', '{}')`);
    await c.query(`INSERT INTO workspace_files (id, org_id, connector_id, external_id, name, mime_type,
        owner_email, sensitivity, exposure, modified_at)
      SELECT 'wsf_' || i, 'org_1', 'con_1', 'f' || i, 'file ' || i, 'text/plain', 'a@x.example', 'low',
        'private', now() FROM generate_series(1, 50) i`);
    await c.query(`INSERT INTO workspace_permissions (id, org_id, connector_id, file_id, external_id,
        sharing_type, target, role)
      SELECT 'wsp_' || i, 'org_1', 'con_1', 'wsf_' || i, 'p' || i, 'internal', 'a@x.example', 'reader'
      FROM generate_series(1, 50) i`);
    await c.query(`INSERT INTO workspace_shares (id, org_id, connector_id, file_id, file_external_id,
        resource_name, owner_email, sharing_type, target, target_count, permission, sensitivity,
        base_severity, severity, severity_rank, risk_rank)
      SELECT 'wsf_' || i || '|public', 'org_1', 'con_1', 'wsf_' || i, 'f' || i, 'file ' || i,
        'a@x.example', 'public', 'anyone', 1, 'reader', 'low', 'HIGH', 'HIGH', 3, 3000
      FROM generate_series(1, 20) i`);

    const handle = createDb({ databaseUrl: bare.url, poolSize: 1 });
    try {
      await handle.migrate();
    } finally {
      await handle.close();
    }

    const one = async <T>(q: string) => (await c.query<T & pg.QueryResultRow>(q)).rows;
    expect(await one(`SELECT count(*)::int AS n FROM workspace_files`)).toEqual([{ n: 50 }]);
    expect(await one(`SELECT count(*)::int AS n FROM workspace_permissions_default`)).toEqual([{ n: 50 }]);
    expect(await one(`SELECT count(*)::int AS n FROM workspace_shares WHERE org_id = 'org_1'`)).toEqual([
      { n: 20 },
    ]);
    for (const t of ["workspace_files", "workspace_permissions", "workspace_shares"]) {
      const [parent] = await one<{ kind: string; key: string }>(
        `SELECT relkind AS kind, pg_get_partkeydef(oid) AS key FROM pg_class WHERE relname = '${t}'`,
      );
      expect(parent).toEqual({ kind: "p", key: "LIST (connector_id)" });
      const [child] = await one<{ bound: string }>(`
        SELECT pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '${t}'::regclass`);
      expect(child?.bound).toBe("DEFAULT");
      // Every index of the parent has the DEFAULT partition's (the old one, attached) under it.
      const indexes = await one<{ parent: string; attached: string | null }>(`
        SELECT p.relname AS parent, (SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = p.oid) AS attached
        FROM pg_index x JOIN pg_class p ON p.oid = x.indexrelid WHERE x.indrelid = '${t}'::regclass`);
      expect(indexes.length).toBeGreaterThan(1);
      for (const i of indexes) expect(i.attached, i.parent).not.toBeNull();
      const [pk] = await one<{ def: string }>(`
        SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE conrelid = '${t}'::regclass AND contype = 'p'`);
      expect(pk?.def).toBe("PRIMARY KEY (id, connector_id)");
    }
    expect(
      await one(`SELECT reloptions AS o FROM pg_class WHERE relname = 'workspace_files_default'`),
    ).toEqual([{ o: ["fillfactor=90"] }]);
    // The new key takes upserts; the foreign key still cascades.
    await c.query(`INSERT INTO workspace_files (id, org_id, connector_id, external_id, name, mime_type,
        owner_email, sensitivity, exposure, modified_at)
      VALUES ('wsf_1', 'org_1', 'con_1', 'f1', 'renamed', 'text/plain', 'a@x.example', 'low', 'private', now())
      ON CONFLICT (id, connector_id) DO UPDATE SET name = excluded.name`);
    expect(await one(`SELECT name FROM workspace_files WHERE id = 'wsf_1'`)).toEqual([{ name: "renamed" }]);
    await c.query(`DELETE FROM connectors WHERE id = 'con_1'`);
    expect(await one(`SELECT count(*)::int AS n FROM workspace_files`)).toEqual([{ n: 0 }]);
  });
});
