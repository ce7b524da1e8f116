/**
 * Measures the resource store's incremental snapshots on a 1,000,000-file demo connector (the
 * figures of docs/decisions.md "Scans at scale (issue 15): the store's incremental snapshots").
 * Not part of the test suite: run by hand, against the machine's PostgreSQL.
 *
 *   npx tsx src/store/measure-incremental.ts seed [files]   # a database with one demo connector
 *   npx tsx src/store/measure-incremental.ts run            # the incremental commits, the graph
 *   npx tsx src/store/measure-incremental.ts drop
 *
 * `seed` writes the connector's first snapshot and keeps every 100th file it streamed, so `run`
 * can change 1 % of the files without reading the million again.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import {
  createSourceAdapter,
  type TAppGrant,
  type TSharedDrive,
  type TSourceFile,
  type TSourceUser,
} from "@posture/connectors";
import { connectors, createDb, organizations } from "@posture/db";
import { TEST_POSTGRES_URL } from "@posture/db/testing";
import { rebuildFlowGraph } from "./flow-graph";
import { storedFileTotals } from "./metrics-sql";
import { openWorkspaceSnapshot, type TSnapshotMode } from "./snapshot-writer";
import { rowsOf } from "./rows";
import { openTransaction } from "./transaction";

const NAME = "store_bench_1m";
const say = (...parts: unknown[]) =>
  process.stdout.write(`${parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ")}\n`);
const DIR = "/tmp/store-bench";
const admin = TEST_POSTGRES_URL;
const url = (() => {
  const u = new URL(admin);
  u.pathname = `/${NAME}`;
  return u.toString();
})();

function must<T>(value: T | undefined | null): T {
  if (value === undefined || value === null) throw new Error("expected a value");
  return value;
}

async function onServer(statement: string) {
  const h = createDb({ databaseUrl: admin, poolSize: 1 });
  try {
    await h.db.execute(sql.raw(statement));
  } finally {
    await h.close();
  }
}

async function seed(files: number) {
  await onServer(`DROP DATABASE IF EXISTS "${NAME}" WITH (FORCE)`);
  await onServer(`CREATE DATABASE "${NAME}"`);
  const h = createDb({ databaseUrl: url, poolSize: 4, statementTimeoutMs: 0 });
  await h.migrate();
  const [org] = await h.db.insert(organizations).values({ name: "Bench", plan: "business" }).returning();
  const [conn] = await h.db
    .insert(connectors)
    .values({ orgId: must(org).id, type: "google_workspace", displayName: "1M", mode: "demo", config: {} })
    .returning();
  const adapter = createSourceAdapter({
    type: "google_workspace",
    mode: "demo",
    connectorId: must(conn).id,
    credentials: undefined,
    config: { fileCount: files },
  });
  const t0 = performance.now();
  const sink = await openWorkspaceSnapshot(h.db, {
    orgId: must(org).id,
    connectorId: must(conn).id,
    scanId: "scn_seed",
    now: new Date(),
    workspace: await adapter.workspace(),
  });
  const sample: TSourceFile[] = [];
  let n = 0;
  for await (const u of adapter.users()) await sink.user(u);
  for await (const f of adapter.files()) {
    await sink.file(f);
    if (n++ % 100 === 0) sample.push(f);
  }
  for await (const d of adapter.sharedDrives()) await sink.drive(d);
  for await (const g of adapter.appGrants()) await sink.grant(g);
  const totals = await sink.commit();
  say(`seed: ${files} files in ${((performance.now() - t0) / 1000).toFixed(1)} s`, totals);
  mkdirSync(DIR, { recursive: true });
  writeFileSync(
    `${DIR}/sample.json`,
    JSON.stringify({ orgId: must(org).id, connectorId: must(conn).id, sample }),
  );
  await h.db.execute(sql`VACUUM ANALYZE`);
  await h.close();
}

/** User + system CPU time of a process on this machine (ms), from /proc. */
function backendCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const ms = (t0: number) => `${(performance.now() - t0).toFixed(0)} ms`;

async function run(quick = false) {
  const { orgId, connectorId, sample } = JSON.parse(readFileSync(`${DIR}/sample.json`, "utf8")) as {
    orgId: string;
    connectorId: string;
    sample: TSourceFile[];
  };
  const h = createDb({ databaseUrl: url, poolSize: 4, statementTimeoutMs: 0 });
  const adapter = createSourceAdapter({
    type: "google_workspace",
    mode: "demo",
    connectorId,
    credentials: undefined,
    config: { fileCount: 1_000_000 },
  });
  const workspace = await adapter.workspace();
  const users: TSourceUser[] = [];
  for await (const u of adapter.users()) users.push(u);
  const drives: TSharedDrive[] = [];
  for await (const d of adapter.sharedDrives()) drives.push(d);
  const grants: TAppGrant[] = [];
  for await (const g of adapter.appGrants()) grants.push(g);

  // One commit: users, drives and grants whole; `files` through `file`, `removed` through removeFile.
  const commit = async (
    label: string,
    mode: TSnapshotMode,
    files: TSourceFile[],
    removed: string[] = [],
    rollback = false,
  ) => {
    const t0 = performance.now();
    const sink = await openWorkspaceSnapshot(h.db, {
      orgId,
      connectorId,
      scanId: `scn_${label}`,
      now: new Date(),
      workspace,
      mode,
    });
    // The CPU time of the snapshot's PostgreSQL backend and of this process: on a machine shared
    // with other work, wall time mostly measures the neighbours.
    let pid = 0;
    await sink.write(async (tx) => {
      pid = Number(rowsOf<{ pid: number }>(await tx.execute(sql`SELECT pg_backend_pid() AS pid`))[0]?.pid);
    });
    // A write returns once the one before it is done: this one waits for the pid's.
    await sink.write(async () => {});
    const pg0 = backendCpuMs(pid);
    const node0 = process.cpuUsage();
    for (const u of users) await sink.user(u);
    const tFiles = performance.now();
    for (const f of files) await sink.file(f);
    for (const id of removed) await sink.removeFile(id);
    const fileMs = performance.now() - tFiles;
    for (const d of drives) await sink.drive(d);
    for (const g of grants) await sink.grant(g);
    if (rollback) {
      await sink.abort();
      say(`${label}: ${ms(t0)} (rolled back)`);
      return;
    }
    const tCommit = performance.now();
    const result = await sink.commit();
    const node = process.cpuUsage(node0);
    say(
      `${label}: ${ms(t0)} whole (files ${fileMs.toFixed(0)} ms, commit ${ms(tCommit)}); CPU: PostgreSQL ${(backendCpuMs(pid) - pg0).toFixed(0)} ms, node ${((node.user + node.system) / 1000).toFixed(0)} ms; removed ${result.removedFileIds.length}`,
    );
  };

  // 10,000 files (1 %) changed: a third get a public link, a third lose every permission, a third
  // are renamed; 100 of the sample are removed instead.
  const changed = sample.slice(0, 10_000).map((f, i) =>
    i % 3 === 0
      ? {
          ...f,
          permissions: [
            ...f.permissions,
            { id: `anyone-${i}`, type: "anyone" as const, role: "reader" as const },
          ],
        }
      : i % 3 === 1
        ? { ...f, permissions: [] }
        : { ...f, name: `${f.name} (renamed)` },
  );
  await commit("nothing-changed", "incremental", []);
  await commit("nothing-changed", "incremental", []);
  await commit("changed-1pct", "incremental", changed);
  await commit("changed-back", "incremental", sample.slice(0, 10_000));
  await commit("changed-1pct-again", "incremental", changed);
  await commit("changed-back-again", "incremental", sample.slice(0, 10_000));

  // The recomputation from SQL, the alternative to the writer's deltas.
  for (let i = 0; i < (quick ? 0 : 2); i++) {
    const open = openTransaction(h.db);
    const tx = await open.tx;
    const t0 = performance.now();
    await storedFileTotals(tx, connectorId);
    say(`totals recomputed from SQL: ${ms(t0)}`);
    const [b] = rowsOf<{ pid: number }>(await tx.execute(sql`SELECT pg_backend_pid() AS pid`));
    const cpu0 = backendCpuMs(Number(b?.pid));
    const t1 = performance.now();
    await rebuildFlowGraph(tx, orgId);
    say(
      `rebuildFlowGraph (whole organization): ${ms(t1)}, PostgreSQL CPU ${(backendCpuMs(Number(b?.pid)) - cpu0).toFixed(0)} ms`,
    );
    await open.rollback();
  }
  await h.close();
}

async function drop() {
  await onServer(`DROP DATABASE IF EXISTS "${NAME}" WITH (FORCE)`);
}

const [cmd, arg] = process.argv.slice(2);
if (cmd === "seed") await seed(Number(arg ?? 1_000_000));
else if (cmd === "run") await run(arg === "quick");
else if (cmd === "drop") await drop();
else say("usage: measure-incremental.ts seed [files] | run | drop");
