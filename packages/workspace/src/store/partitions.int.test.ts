import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSourceAdapter,
  type TAppGrant,
  type TFileChange,
  type TSharedDrive,
  type TSourceFile,
  type TSourceUser,
  type TWorkspace,
} from "@posture/connectors";
import {
  connectors,
  createDb,
  emptyConnectorPartitions,
  sweepConnectorPartitions,
  organizations,
  partitionName,
  type Db,
} from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { rowsOf } from "./rows";
import { openWorkspaceSnapshot, type TSnapshotMode } from "./snapshot-writer";
import { storeContent } from "./testing/store-content";

// A connector's first snapshot on node-postgres is loaded into tables of its own: past the
// threshold they become its partitions (indexes built once, attached at the commit), below it
// their rows move into the DEFAULT partition. Either way readers must see exactly what the plain
// load (row by row into the indexed parents) gives, and rescans must work on either.

type TState = { users: TSourceUser[]; files: TSourceFile[]; drives: TSharedDrive[]; grants: TAppGrant[] };
type TTarget = { orgId: string; connectorId: string };

const NOW = new Date("2026-11-27T12:00:00.000Z");
const FILES = 240;
/** A threshold below the demo workspace's files: its first snapshot gets partitions. */
const LOW = 100;
/** One no first snapshot reaches: the rows go into the DEFAULT partition. */
const NEVER = Number.MAX_SAFE_INTEGER;
const TABLES = ["workspace_files", "workspace_permissions", "workspace_shares"] as const;

function must<T>(value: T | undefined | null): T {
  if (value === undefined || value === null) throw new Error("expected a value");
  return value;
}

async function newConnector(db: Db, name: string): Promise<TTarget> {
  const [org] = await db.insert(organizations).values({ name, plan: "business" }).returning();
  const [c] = await db
    .insert(connectors)
    .values({ orgId: must(org).id, type: "google_workspace", displayName: name, mode: "demo", config: {} })
    .returning();
  return { orgId: must(org).id, connectorId: must(c).id };
}

async function demoState(connectorId: string): Promise<TState & { workspace: TWorkspace }> {
  const a = createSourceAdapter({
    type: "google_workspace",
    mode: "demo",
    connectorId,
    credentials: undefined,
    config: { fileCount: FILES },
  });
  const state: TState = { users: [], files: [], drives: [], grants: [] };
  for await (const u of a.users()) state.users.push(u);
  for await (const f of a.files()) state.files.push(f);
  for await (const d of a.sharedDrives()) state.drives.push(d);
  for await (const g of a.appGrants()) state.grants.push(g);
  return { ...state, workspace: await a.workspace() };
}

async function write(
  db: Db,
  t: TTarget,
  workspace: TWorkspace,
  mode: TSnapshotMode,
  state: TState,
  opts: { min?: number; changes?: TFileChange[]; abortAfterFiles?: boolean } = {},
) {
  const sink = await openWorkspaceSnapshot(db, {
    ...t,
    scanId: `scn_${mode}`,
    now: NOW,
    workspace,
    mode,
    partitionMinFiles: opts.min,
  });
  try {
    for (const u of state.users) await sink.user(u);
    if (mode === "full") for (const f of state.files) await sink.file(f);
    for (const c of opts.changes ?? []) {
      if (c.kind === "file") await sink.file(c.file);
      else if (c.kind === "removed") await sink.removeFile(c.fileId);
      else if (c.kind === "ownerGone") await sink.removeOwner(c.ownerEmail);
      else await sink.removeDrive(c.driveId);
    }
    if (opts.abortAfterFiles) throw new Error("the source failed");
    for (const d of state.drives) await sink.drive(d);
    for (const g of state.grants) await sink.grant(g);
  } catch (err) {
    await sink.abort();
    throw err;
  }
  return sink.commit();
}

/** The connector's partitions of the three tables (attached), and each one's index count. */
async function partitionsOf(db: Db, connectorId: string) {
  return rowsOf<{ parent: string; child: string; indexes: number; bound: string }>(
    await db.execute(sql`
      SELECT p.relname AS parent, c.relname AS child, pg_get_expr(c.relpartbound, c.oid) AS bound,
        (SELECT count(*)::int FROM pg_indexes x WHERE x.tablename = c.relname) AS indexes
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE c.relname = ANY(${`{${TABLES.map((t) => partitionName(t, connectorId)).join(",")}}`}::text[])
      ORDER BY 1`),
  );
}

async function tablesNamedFor(db: Db, connectorId: string): Promise<string[]> {
  const names = TABLES.map((t) => partitionName(t, connectorId));
  const rows = rowsOf<{ relname: string }>(
    await db.execute(
      sql`SELECT relname FROM pg_class WHERE relname LIKE ANY(${`{${names.map((n) => `${n}%`).join(",")}}`}::text[])`,
    ),
  );
  return rows.map((r) => r.relname);
}

async function rowsIn(db: Db, table: string, connectorId: string): Promise<number> {
  const [r] = rowsOf<{ n: number }>(
    await db.execute(
      sql`SELECT count(*)::int AS n FROM ${sql.raw(table)} WHERE connector_id = ${connectorId}`,
    ),
  );
  return r?.n ?? 0;
}

describe("first snapshots in partitions of their own", () => {
  let t: TestDb;
  let db: Db;
  let state: TState & { workspace: TWorkspace };
  /** Loaded into partitions of its own, and one loaded the plain way: the same workspace. */
  let own: TTarget;
  let plain: TTarget;

  beforeAll(async () => {
    t = await createTestDb();
    db = t.db;
    own = await newConnector(db, "Own partitions");
    plain = await newConnector(db, "Default partition");
    state = await demoState(own.connectorId);
  }, 60_000);
  afterAll(async () => {
    await t?.drop();
  });

  /** The state with its first files read twice (a page re-read), the second time renamed. */
  const withRereads = (s: TState): TState => ({
    ...s,
    files: [...s.files, ...s.files.slice(0, 7).map((f) => ({ ...f, name: `${f.name} (v2)` }))],
  });

  it("loads a large first snapshot into partitions with every index, and readers see the plain load", async () => {
    const a = await write(db, own, state.workspace, "full", withRereads(state), { min: LOW });
    // The plain way: upserts into the parents (the DEFAULT partition), rows read twice upserted.
    const b = await write(db, plain, state.workspace, "full", withRereads(state), { min: NEVER });
    expect(a).toEqual(b);
    expect(a.files).toBe(FILES + 7);

    const parts = await partitionsOf(db, own.connectorId);
    expect(parts.map((p) => p.parent)).toEqual([...TABLES]);
    for (const p of parts) expect(p.bound).toBe(`FOR VALUES IN ('${own.connectorId}')`);
    // Each partition has the parent's indexes, its primary key included.
    for (const table of TABLES) {
      const [parent] = rowsOf<{ n: number }>(
        await db.execute(
          sql`SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = ${`${table}_default`}`,
        ),
      );
      expect(parts.find((p) => p.parent === table)?.indexes).toBe(parent?.n);
    }
    // The DEFAULT partition holds none of the partitioned connector's rows, all of the other's.
    expect(await rowsIn(db, "workspace_files_default", own.connectorId)).toBe(0);
    expect(await rowsIn(db, "workspace_files_default", plain.connectorId)).toBe(FILES);
    expect(await rowsIn(db, partitionName("workspace_files", own.connectorId), own.connectorId)).toBe(FILES);
    // The small load left no table of its own behind.
    expect(await tablesNamedFor(db, plain.connectorId)).toEqual([]);
    // The re-read files' last copy stayed.
    const renamed = rowsOf<{ n: number }>(
      await db.execute(
        sql`SELECT count(*)::int AS n FROM workspace_files WHERE connector_id = ${own.connectorId} AND name LIKE '% (v2)'`,
      ),
    );
    expect(renamed[0]?.n).toBe(7);

    const [x, y] = [await storeContent(db, own), await storeContent(db, plain)];
    expect(x.files.length).toBe(FILES);
    expect(x.shares.length).toBeGreaterThan(0);
    expect(x.edges.length).toBeGreaterThan(0);
    expect(x).toEqual(y);
  });

  it("rescans a partitioned connector, full and incremental, as the DEFAULT partition's", async () => {
    // Full: a file renamed, one gone, one new.
    const first = must(state.files[0]);
    const next: TState = {
      ...state,
      files: [
        { ...first, name: "payroll passwords.xlsx" },
        ...state.files.slice(2),
        { ...first, id: "brand-new", name: "brand new.txt", permissions: [] },
      ],
    };
    const a = await write(db, own, state.workspace, "full", next, { min: LOW });
    const b = await write(db, plain, state.workspace, "full", next, { min: LOW });
    expect(a).toEqual(b);
    expect(await storeContent(db, own)).toEqual(await storeContent(db, plain));

    // Incremental: a file shared publicly, one removed.
    const shared = must(next.files[3]);
    const changes: TFileChange[] = [
      {
        kind: "file",
        file: {
          ...shared,
          permissions: [...shared.permissions, { id: "anyone-x", type: "anyone", role: "reader" }],
        },
      },
      { kind: "removed", fileId: must(next.files[4]).id },
    ];
    const c = await write(db, own, state.workspace, "incremental", next, { changes });
    const d = await write(db, plain, state.workspace, "incremental", next, { changes });
    expect(c).toEqual(d);
    expect(await storeContent(db, own)).toEqual(await storeContent(db, plain));
    // The rescans wrote through the parents into the connector's partitions.
    expect(await rowsIn(db, "workspace_files_default", own.connectorId)).toBe(0);
    expect((await partitionsOf(db, own.connectorId)).length).toBe(3);
  });

  it("reloads a partitioned connector whose store a rescan emptied, through its partitions", async () => {
    const empty: TState = { users: [], files: [], drives: [], grants: [] };
    await write(db, own, state.workspace, "full", empty, { min: LOW });
    await write(db, plain, state.workspace, "full", empty, { min: LOW });
    expect(await rowsIn(db, "workspace_files", own.connectorId)).toBe(0);
    const a = await write(db, own, state.workspace, "full", state, { min: LOW });
    const b = await write(db, plain, state.workspace, "full", state, { min: LOW });
    expect(a).toEqual(b);
    expect(await storeContent(db, own)).toEqual(await storeContent(db, plain));
    expect((await partitionsOf(db, own.connectorId)).length).toBe(3);
    expect(await rowsIn(db, "workspace_files_default", own.connectorId)).toBe(0);
    // The other one's first load after emptying was large too: it has partitions now.
    expect((await partitionsOf(db, plain.connectorId)).length).toBe(3);
  });

  it("leaves no table and nothing visible when a first snapshot is aborted", async () => {
    const c = await newConnector(db, "Aborted");
    await expect(
      write(db, c, state.workspace, "full", state, { min: LOW, abortAfterFiles: true }),
    ).rejects.toThrow("the source failed");
    expect(await tablesNamedFor(db, c.connectorId)).toEqual([]);
    expect(await rowsIn(db, "workspace_files", c.connectorId)).toBe(0);
    expect(await rowsIn(db, "workspace_users", c.connectorId)).toBe(0);
  });

  it("lets other connectors' readers and writers go on while a first snapshot loads", async () => {
    const c = await newConnector(db, "Loading");
    const sink = await openWorkspaceSnapshot(db, {
      ...c,
      scanId: "scn_1",
      now: NOW,
      workspace: state.workspace,
      mode: "full",
      partitionMinFiles: LOW,
    });
    const other = createDb({ databaseUrl: t.url, poolSize: 1 });
    let committed = false;
    const count = async (o: Db, query: ReturnType<typeof sql>) =>
      must(rowsOf<{ n: number }>(await o.execute(query))[0]).n;
    try {
      for (const u of state.users) await sink.user(u);
      for (const f of state.files) await sink.file(f);
      // Every batch written: the loaded tables exist, not attached yet.
      await sink.write(async () => {});
      const plainFiles = await count(
        db,
        sql`SELECT count(*)::int AS n FROM workspace_files WHERE org_id = ${plain.orgId}`,
      );
      await other.db.transaction(async (tx) => {
        const o = tx as unknown as Db;
        // Nobody else waits for them: a wait would fail at once.
        await o.execute(sql`SET LOCAL lock_timeout = '200ms'`);
        expect(
          await count(o, sql`SELECT count(*)::int AS n FROM workspace_files WHERE org_id = ${plain.orgId}`),
        ).toBe(plainFiles);
        expect(await count(o, sql`SELECT count(*)::int AS n FROM workspace_shares`)).toBeGreaterThan(0);
        await o.execute(
          sql`UPDATE workspace_files SET size_bytes = size_bytes WHERE connector_id = ${plain.connectorId}`,
        );
        // Nor does anything of the load show before the commit.
        expect(
          await count(
            o,
            sql`SELECT count(*)::int AS n FROM workspace_files WHERE connector_id = ${c.connectorId}`,
          ),
        ).toBe(0);
      });
      for (const d of state.drives) await sink.drive(d);
      await sink.commit();
      committed = true;
      expect(
        await count(
          other.db,
          sql`SELECT count(*)::int AS n FROM workspace_files WHERE connector_id = ${c.connectorId}`,
        ),
      ).toBe(FILES);
      expect((await partitionsOf(db, c.connectorId)).length).toBe(3);
    } finally {
      if (!committed) await sink.abort();
      await other.close();
    }
  });

  it("moves a large first load into the DEFAULT partition when the attach cannot have its lock", async () => {
    const c = await newConnector(db, "Busy attach");
    const other = createDb({ databaseUrl: t.url, poolSize: 1 });
    try {
      // Another transaction, open, that read the DEFAULT partition (a scan writing it, a long
      // report): attaching waits for it.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let wrote = () => {};
      const written = new Promise<void>((resolve) => (wrote = resolve));
      const busy = other.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT count(*) FROM workspace_files_default`);
        wrote();
        await held;
      });
      await written;
      const sink = await openWorkspaceSnapshot(db, {
        ...c,
        scanId: "scn_1",
        now: NOW,
        workspace: state.workspace,
        mode: "full",
        partitionMinFiles: LOW,
        attachRetry: { lockTimeoutMs: 50, attempts: 2, pauseMs: 10 },
      });
      for (const u of state.users) await sink.user(u);
      for (const f of state.files) await sink.file(f);
      for (const d of state.drives) await sink.drive(d);
      const counts = await sink.commit();
      release();
      await busy;
      expect(counts.files).toBe(FILES);
      expect(await partitionsOf(db, c.connectorId)).toEqual([]);
      expect(await tablesNamedFor(db, c.connectorId)).toEqual([]);
      expect(await rowsIn(db, "workspace_files_default", c.connectorId)).toBe(FILES);
    } finally {
      await other.close();
    }
  });

  it("empties and drops a deleted connector's partitions and leaves no rows", async () => {
    expect(await emptyConnectorPartitions(db, own.connectorId)).toBe(3);
    expect(await rowsIn(db, "workspace_files", own.connectorId)).toBe(0);
    await db.delete(connectors).where(eq(connectors.id, own.connectorId));
    expect(await sweepConnectorPartitions(db)).toBe(3);
    expect(await partitionsOf(db, own.connectorId)).toEqual([]);
    expect(await tablesNamedFor(db, own.connectorId)).toEqual([]);
    for (const table of [...TABLES, "workspace_users", "workspace_snapshots"])
      expect(await rowsIn(db, table, own.connectorId)).toBe(0);
    // A connector without partitions: nothing to empty, the cascade deletes its rows.
    const small = await newConnector(db, "Small");
    await write(db, small, state.workspace, "full", state, { min: NEVER });
    expect(await rowsIn(db, "workspace_files_default", small.connectorId)).toBe(FILES);
    expect(await emptyConnectorPartitions(db, small.connectorId)).toBe(0);
    await db.delete(connectors).where(eq(connectors.id, small.connectorId));
    for (const table of TABLES) expect(await rowsIn(db, table, small.connectorId)).toBe(0);
  });
});
