import pg from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";
import { readFile } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { connectors, createDb } from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { createDemoAdapter } from "@posture/connectors";
import { storeActivity } from "@posture/ueba";
import { openWorkspaceSnapshot } from "@posture/workspace";
import { seedOwnerWithKey } from "../lib/seed";

// PostgreSQL's side of a first snapshot, four ways (issue 15, "bulk-loaded first snapshots"):
//   unnest   today's path: INSERT … SELECT FROM unnest(array parameters), 2,000 rows a statement
//            (10,000 for events), the store tables as upserts (ON CONFLICT (id, connector_id) DO UPDATE)
//   copy     COPY FROM STDIN straight into the indexed table
//   deferred COPY into a table without indexes or foreign keys, then its indexes built once
//            (what a per-connector partition or a swapped-in table would do)
//   staging  COPY into an UNLOGGED table without indexes, then INSERT … SELECT into the real one
// Each load runs in one transaction per table into an empty table after a CHECKPOINT; time and
// WAL (pg_current_wal_lsn() before and after: cluster-wide, so other databases' writes count
// too — run on a quiet server). The rows are a real demo workspace's, written once by today's
// code (its time printed too), then replicated ×(files / 100,000) with suffixed ids.
//
//   pnpm --filter @posture/bench exec tsx src/probes/bulk-load.ts [files] [method,…]
// BENCH_PROBE_DB=<url> reuses a database a previous run kept (BENCH_PROBE_KEEP=1).

const FILES = Number(process.argv[2] ?? "100000");
const METHODS = (process.argv[3] ?? "unnest,copy,deferred,staging").split(",");
const BASE = Math.min(FILES, 100_000);
const COPIES = Math.max(1, Math.round(FILES / BASE));

type TTable = {
  name: string;
  src: string;
  /** Columns loaded, in order, with the unnest array type of each. */
  columns: ReadonlyArray<readonly [string, string]>;
  batch: number;
  /** How today's code inserts a batch (given `u` as the unnested row). */
  insert: (cols: string) => string;
  /** Columns of the unnest path (today's inputs, `_…` ones computed). */
  unnest?: { columns: ReadonlyArray<readonly [string, string]>; selects: string; src: string };
};

const fileCols = [
  ["id", "text"],
  ["org_id", "text"],
  ["connector_id", "text"],
  ["external_id", "text"],
  ["name", "text"],
  ["mime_type", "text"],
  ["owner_email", "text"],
  ["drive_external_id", "text"],
  ["sensitivity", "text"],
  ["exposure", "text"],
  ["external_permission_count", "int"],
  ["size_bytes", "bigint"],
  ["modified_at", "timestamptz"],
  ["labels", "text[]"],
] as const;
const permCols = [
  ["id", "text"],
  ["org_id", "text"],
  ["connector_id", "text"],
  ["file_id", "text"],
  ["external_id", "text"],
  ["sharing_type", "text"],
  ["target", "text"],
  ["role", "text"],
  ["target_domain", "text"],
] as const;
const shareCols = [
  ["id", "text"],
  ["org_id", "text"],
  ["connector_id", "text"],
  ["file_id", "text"],
  ["file_external_id", "text"],
  ["resource_name", "text"],
  ["owner_email", "text"],
  ["sharing_type", "text"],
  ["target", "text"],
  ["target_count", "int"],
  ["target_domains", "text[]"],
  ["permission", "text"],
  ["sensitivity", "text"],
  ["base_severity", "text"],
  ["severity", "text"],
  ["severity_rank", "int"],
  ["risk_rank", "int"],
] as const;
const eventCols = [
  ["org_id", "text"],
  ["connector_id", "text"],
  ["external_id", "text"],
  ["principal", "text"],
  ["kind", "text"],
  ["at", "timestamptz"],
  ["resource_id", "text"],
  ["target", "text"],
  ["count", "int"],
] as const;

const upsertAll = (table: string, cols: ReadonlyArray<readonly [string, string]>) => (names: string) =>
  `INSERT INTO ${table} (${names}) SELECT %SELECTS% FROM %UNNEST% ON CONFLICT (id, connector_id) DO UPDATE SET ${cols
    .filter(([n]) => n !== "id")
    .map(([n]) => `"${n}" = excluded."${n}"`)
    .join(", ")}`;

const TABLES: TTable[] = [
  {
    name: "workspace_files",
    src: "src_files",
    columns: fileCols,
    batch: 2_000,
    insert: upsertAll("workspace_files", fileCols),
    unnest: {
      columns: [...fileCols.slice(0, 13), ["_label", "text"]],
      selects:
        fileCols
          .slice(0, 13)
          .map(([n]) => `u."${n}"`)
          .join(", ") + `, CASE WHEN u."_label" IS NULL THEN '{}'::text[] ELSE ARRAY[u."_label"] END`,
      src: `${fileCols
        .slice(0, 13)
        .map(([n]) => `"${n}"`)
        .join(", ")}, labels[1] AS "_label"`,
    },
  },
  {
    name: "workspace_permissions",
    src: "src_perms",
    columns: permCols,
    batch: 2_000,
    insert: upsertAll("workspace_permissions", permCols),
  },
  {
    name: "workspace_shares",
    src: "src_shares",
    columns: shareCols,
    batch: 2_000,
    insert: upsertAll("workspace_shares", shareCols),
    unnest: {
      columns: [...shareCols.slice(0, 10), ["_domain_list", "text"], ...shareCols.slice(11)],
      selects: shareCols
        .map(([n]) =>
          n === "target_domains"
            ? `CASE WHEN u."_domain_list" = '' THEN '{}'::text[] ELSE string_to_array(u."_domain_list", ',') END`
            : `u."${n}"`,
        )
        .join(", "),
      src: shareCols
        .map(([n]) =>
          n === "target_domains" ? `array_to_string(target_domains, ',') AS "_domain_list"` : `"${n}"`,
        )
        .join(", "),
    },
  },
  {
    name: "activity_events",
    src: "src_events",
    columns: eventCols,
    batch: 10_000,
    insert: (names) => `INSERT INTO activity_events (${names}) SELECT %SELECTS% FROM %UNNEST%`,
  },
];

const keep = process.env.BENCH_PROBE_KEEP === "1";
const given = process.env.BENCH_PROBE_DB;
const test = given ? null : await createTestDb();
const url = given ?? test?.url ?? "";
if (keep) console.log(`BENCH_PROBE_DB=${url}`);
const handle = createDb({ databaseUrl: url, poolSize: 4, statementTimeoutMs: 0 });
const db = handle.db;
const client = async () => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("set statement_timeout = 0");
  return c;
};
const a = await client();
const b = await client();
// Index builds in this backend alone, so its CPU time is the whole load's.
await b.query("SET max_parallel_maintenance_workers = 0");
const backendPid = (await b.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid ?? 0;
const one = async <T>(q: string, p: unknown[] = []) => (await a.query(q, p)).rows[0] as T;
await a.query(`CREATE EXTENSION IF NOT EXISTS pg_walinspect`);

const fmt = (n: number) => n.toLocaleString("en");
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

let orgId: string;
const haveSrc = (
  await one<{ n: number }>(`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'src_files'`)
).n;
if (!haveSrc) {
  const owner = await seedOwnerWithKey(db, "enterprise");
  orgId = owner.orgId;
  const [c] = await db
    .insert(connectors)
    .values({
      orgId,
      type: "google_workspace",
      displayName: "Probe",
      mode: "demo",
      config: { fileCount: BASE },
    })
    .returning();
  const connectorId = c?.id ?? "";
  const adapter = createDemoAdapter({ seed: connectorId, type: "google_workspace", fileCount: BASE });
  const now = new Date();
  const t0 = performance.now();
  const activity = storeActivity(db, {
    orgId,
    connectorId,
    events: adapter.activity(new Date(0)),
    first: true,
  });
  const sink = await openWorkspaceSnapshot(db, {
    orgId,
    connectorId,
    scanId: "scn_probe",
    now,
    workspace: await adapter.workspace(),
  });
  for await (const u of adapter.users()) await sink.user(u);
  for await (const f of adapter.files()) await sink.file(f);
  for await (const d of adapter.sharedDrives()) await sink.drive(d);
  await sink.commit();
  const storeMs = performance.now() - t0;
  const events = await activity;
  const totalMs = performance.now() - t0;
  console.log(
    `today's write path, ${fmt(BASE)} files, client included: store ${(storeMs / 1000).toFixed(1)} s, store + ${fmt(events.inserted)} events ${(totalMs / 1000).toFixed(1)} s`,
  );
  const src = [
    ["src_files", "workspace_files", ["id", "external_id"]],
    ["src_perms", "workspace_permissions", ["id", "file_id", "external_id"]],
    ["src_shares", "workspace_shares", ["id", "file_id", "file_external_id"]],
    ["src_events", "activity_events", ["external_id"]],
  ] as const;
  for (const [name, from, suffixed] of src) {
    await a.query(`CREATE UNLOGGED TABLE ${name} AS SELECT * FROM ${from} WHERE false`);
    if (from === "activity_events") await a.query(`ALTER TABLE ${name} DROP COLUMN id`);
    await a.query(`ALTER TABLE ${name} ADD COLUMN n bigserial`);
    const cols = (
      await a.query<{ c: string }>(
        `SELECT column_name AS c FROM information_schema.columns WHERE table_name = $1 AND column_name <> 'n' ORDER BY ordinal_position`,
        [name],
      )
    ).rows.map((r) => r.c);
    for (let k = 0; k < COPIES; k++) {
      const sel = cols
        .map((c) => ((suffixed as readonly string[]).includes(c) ? `${c} || '.${k}'` : c))
        .join(", ");
      await a.query(`INSERT INTO ${name} (${cols.join(", ")}) SELECT ${sel} FROM ${from} ORDER BY 1`);
    }
    await a.query(`CREATE INDEX ON ${name} (n)`);
    await a.query(`ANALYZE ${name}`);
  }
} else {
  orgId = (await one<{ org_id: string }>(`SELECT org_id FROM src_files LIMIT 1`)).org_id;
}
for (const t of TABLES) {
  const { n } = await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.src}`);
  console.log(`${t.name}: ${fmt(n)} rows`);
}

async function truncate() {
  await a.query(`TRUNCATE workspace_files, workspace_permissions, workspace_shares, activity_events`);
  await a.query(`CHECKPOINT`);
}

async function newConnector(): Promise<string> {
  const [c] = await db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Probe load", mode: "demo" })
    .returning();
  return c?.id ?? "";
}

const srcSelect = (t: TTable, connectorId: string, cols = t.columns.map(([n]) => `"${n}"`).join(", ")) =>
  cols.replace(`"connector_id"`, `'${connectorId}'::text AS connector_id`);

async function viaUnnest(t: TTable, connectorId: string, upsert: boolean) {
  const cols = t.unnest?.columns ?? t.columns;
  const names = t.columns.map(([n]) => `"${n}"`).join(", ");
  const selects = t.unnest?.selects ?? t.columns.map(([n]) => `u."${n}"`).join(", ");
  const src = srcSelect(t, connectorId, t.unnest?.src ?? undefined);
  const aggs = cols.map(([n]) => `array_agg("${n}" ORDER BY n)::text`).join(", ");
  const params = cols.map(([, type], i) => `$${i + 1}::${type}[]`).join(", ");
  const alias = cols.map(([n]) => `"${n}"`).join(", ");
  const statement = (
    upsert ? t.insert(names) : `INSERT INTO ${t.name} (${names}) SELECT %SELECTS% FROM %UNNEST%`
  )
    .replace("%SELECTS%", selects)
    .replace("%UNNEST%", `unnest(${params}) AS u(${alias})`);
  const fetch = async (from: number) =>
    (
      await a.query({
        text: `SELECT ${aggs}, max(n) AS last FROM (SELECT ${src}, n FROM ${t.src} WHERE n > $1 ORDER BY n LIMIT ${t.batch}) s`,
        values: [from],
        rowMode: "array",
      })
    ).rows[0] as unknown[];
  let next = await fetch(0);
  let pgMs = 0;
  while (next[cols.length] !== null) {
    const batch = next;
    const t0 = performance.now();
    const [, fetched] = await Promise.all([
      b.query(statement, batch.slice(0, cols.length)).then(() => (pgMs += performance.now() - t0)),
      fetch(Number(batch[cols.length])),
    ]);
    next = fetched;
  }
  return { insertMs: pgMs };
}

async function copyInto(t: TTable, target: string, connectorId: string) {
  const names = t.columns.map(([n]) => `"${n}"`).join(", ");
  const out = a.query(
    copyTo(`COPY (SELECT ${srcSelect(t, connectorId)} FROM ${t.src} ORDER BY n) TO STDOUT`),
  );
  const into = b.query(copyFrom(`COPY ${target} (${names}) FROM STDIN`));
  await pipeline(out, into);
  return into.rowCount;
}

async function indexesOf(table: string) {
  return (
    await a.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`,
      [table],
    )
  ).rows;
}

type TResult = { ms: number; cpuMs: number; wal: number; walExact: boolean; parts: Record<string, number> };

/**
 * WAL of one transaction: its own records (by xid) between two LSNs, from pg_walinspect, so other
 * databases' writes on a shared server do not count; the plain LSN difference when the WAL is
 * already recycled (loads larger than max_wal_size).
 */
async function walOf(l0: string, l1: string, xid: string): Promise<{ bytes: number; exact: boolean }> {
  try {
    const r = await one<{ n: string }>(
      `SELECT coalesce(sum(record_length), 0)::bigint AS n FROM pg_get_wal_records_info($1, $2) WHERE xid = $3::xid`,
      [l0, l1, xid],
    );
    return { bytes: Number(r.n), exact: true };
  } catch {
    const r = await one<{ n: string }>(`SELECT pg_wal_lsn_diff($2, $1)::bigint AS n`, [l0, l1]);
    return { bytes: Number(r.n), exact: false };
  }
}

/** CPU time (user + system, ms) the connection's backend process has used: steadier than wall time on a loaded machine. */
async function backendCpuMs(): Promise<number> {
  const stat = await readFile(`/proc/${backendPid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measure(fn: () => Promise<Record<string, number>>): Promise<TResult> {
  const cpu0 = await backendCpuMs();
  const l0 = (await one<{ l: string }>(`SELECT pg_current_wal_lsn()::text AS l`)).l;
  const t0 = performance.now();
  await b.query("BEGIN");
  const xid = (await b.query<{ x: string }>(`SELECT txid_current()::text AS x`)).rows[0]?.x ?? "0";
  const parts = await fn();
  await b.query("COMMIT");
  const ms = performance.now() - t0;
  const l1 = (await one<{ l: string }>(`SELECT pg_current_wal_lsn()::text AS l`)).l;
  const wal = await walOf(l0, l1, xid);
  return { ms, cpuMs: (await backendCpuMs()) - cpu0, wal: wal.bytes, walExact: wal.exact, parts };
}

// Partitioned twins of the store tables (the next session's schema), for the deferred load's attach.
for (const t of TABLES.filter((x) => x.name !== "activity_events")) {
  await a.query(`DROP TABLE IF EXISTS ${t.name}_parted`);
  await a.query(
    `CREATE TABLE ${t.name}_parted (LIKE ${t.name} INCLUDING DEFAULTS) PARTITION BY LIST (connector_id)`,
  );
  for (const ix of await indexesOf(t.name)) {
    if (ix.def.startsWith("CREATE UNIQUE")) continue;
    await a.query(
      ix.def
        .replace(` INDEX ${ix.name} `, ` INDEX ${ix.name}_parted `)
        .replace(` ON public.${t.name} `, ` ON public.${t.name}_parted `),
    );
  }
}

const results: Record<string, Record<string, TResult>> = {};
for (const method of METHODS) {
  await truncate();
  const connectorId = await newConnector();
  results[method] = {};
  for (const t of TABLES) {
    const r = await measure(async () => {
      if (method === "unnest") return viaUnnest(t, connectorId, true);
      if (method === "plain") return viaUnnest(t, connectorId, false);
      if (method === "copy") {
        await copyInto(t, t.name, connectorId);
        return {};
      }
      if (method === "deferred") {
        const shadow = `${t.name}_load`;
        await b.query(`DROP TABLE IF EXISTS ${shadow}`);
        await b.query(`CREATE TABLE ${shadow} (LIKE ${t.name} INCLUDING DEFAULTS INCLUDING IDENTITY)`);
        const c0 = performance.now();
        await copyInto(t, shadow, connectorId);
        const copyMs = performance.now() - c0;
        const parts: Record<string, number> = { copyMs };
        // An index build sorts in maintenance_work_mem (64 MB by default): raised for this load only.
        await b.query(`SET LOCAL maintenance_work_mem = '256MB'`);
        for (const ix of await indexesOf(t.name)) {
          const i0 = performance.now();
          const def = ix.def
            .replace(` INDEX ${ix.name} `, ` INDEX ${ix.name}_load `)
            .replace(` ON public.${t.name} `, ` ON public.${shadow} `);
          await b.query(def);
          parts[ix.name] = performance.now() - i0;
        }
        if (t.name !== "activity_events") {
          // The switch to readers: attached as the connector's partition of a list-partitioned
          // table with the same (non-unique) indexes. The CHECK lets ATTACH skip its scan.
          const a0 = performance.now();
          await b.query(
            `ALTER TABLE ${shadow} ADD CONSTRAINT ${shadow}_connector CHECK (connector_id = '${connectorId}')`,
          );
          await b.query(
            `ALTER TABLE ${t.name}_parted ATTACH PARTITION ${shadow} FOR VALUES IN ('${connectorId}')`,
          );
          parts.attachMs = performance.now() - a0;
        }
        return parts;
      }
      if (method === "staging") {
        const stage = `${t.name}_stage`;
        await b.query(`DROP TABLE IF EXISTS ${stage}`);
        await b.query(
          `CREATE UNLOGGED TABLE ${stage} AS SELECT ${t.columns.map(([n]) => `"${n}"`).join(", ")} FROM ${t.name} WHERE false`,
        );
        const c0 = performance.now();
        await copyInto(t, stage, connectorId);
        const copyMs = performance.now() - c0;
        const i0 = performance.now();
        const names = t.columns.map(([n]) => `"${n}"`).join(", ");
        await b.query(`INSERT INTO ${t.name} (${names}) SELECT ${names} FROM ${stage}`);
        const insertMs = performance.now() - i0;
        await b.query(`DROP TABLE ${stage}`);
        return { copyMs, insertMs };
      }
      throw new Error(`unknown method ${method}`);
    });
    results[method][t.name] = r;
    const parts = Object.entries(r.parts)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`)
      .join(", ");
    console.log(
      `${method.padEnd(8)} ${t.name.padEnd(22)} ${(r.ms / 1000).toFixed(2).padStart(7)} s  cpu ${(r.cpuMs / 1000).toFixed(2).padStart(6)} s  WAL ${mb(r.wal).padStart(7)}${r.walExact ? "" : "*"}  ${parts}`,
    );
  }
  const total = Object.values(results[method]).reduce(
    (s, r) => ({ ms: s.ms + r.ms, cpuMs: s.cpuMs + r.cpuMs, wal: s.wal + r.wal }),
    { ms: 0, cpuMs: 0, wal: 0 },
  );
  console.log(
    `${method.padEnd(8)} TOTAL ${(total.ms / 1000).toFixed(2)} s  backend cpu ${(total.cpuMs / 1000).toFixed(2)} s  WAL ${mb(total.wal)}`,
  );
  if (method === "deferred") {
    for (const t of TABLES) {
      if (t.name !== "activity_events")
        await b.query(`ALTER TABLE ${t.name}_parted DETACH PARTITION ${t.name}_load`);
      await b.query(`DROP TABLE IF EXISTS ${t.name}_load`);
    }
  }
}

await a.end();
await b.end();
await handle.close();
if (test && !keep) await test.drop();
else console.log(`kept: BENCH_PROBE_DB=${url}`);
