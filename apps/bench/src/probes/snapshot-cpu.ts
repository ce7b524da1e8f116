import { readFile } from "node:fs/promises";
import { connectors, createDb, queryRows } from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { createDemoAdapter } from "@posture/connectors";
import { storeActivity } from "@posture/ueba";
import { openWorkspaceSnapshot } from "@posture/workspace";
import { sql } from "drizzle-orm";
import { seedOwnerWithKey } from "../lib/seed";

// A connector's first snapshot and first activity ingestion (the scan's two write streams, side by
// side as the scan runs them), with where the CPU went: this process (the client) and the
// PostgreSQL backends serving it (from /proc). CPU is what to compare on a shared machine; wall
// time is printed too.
//   pnpm --filter @posture/bench exec tsx src/probes/snapshot-cpu.ts [files]

const FILES = Number(process.argv[2] ?? "100000");
const test = await createTestDb();
const handle = createDb({ databaseUrl: test.url, poolSize: 2, statementTimeoutMs: 0 });
const db = handle.db;

async function backendsCpuMs(): Promise<Map<number, number>> {
  const pids = await queryRows<{ pid: number }>(
    db,
    sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`,
  );
  const out = new Map<number, number>();
  for (const { pid } of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(pid, (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // gone
    }
  }
  return out;
}

try {
  const owner = await seedOwnerWithKey(db, "enterprise");
  const [c] = await db
    .insert(connectors)
    .values({ orgId: owner.orgId, type: "google_workspace", displayName: "Probe", mode: "demo" })
    .returning();
  const connectorId = c?.id ?? "";
  const adapter = createDemoAdapter({ seed: connectorId, type: "google_workspace", fileCount: FILES });
  // Both pool connections open before the baseline, so every backend is counted from its start.
  await Promise.all([db.execute(sql`SELECT pg_sleep(0.05)`), db.execute(sql`SELECT pg_sleep(0.05)`)]);
  const before = await backendsCpuMs();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const activity = storeActivity(db, {
    orgId: owner.orgId,
    connectorId,
    events: adapter.activity(new Date(0)),
    first: true,
  });
  const sink = await openWorkspaceSnapshot(db, {
    orgId: owner.orgId,
    connectorId,
    scanId: "scn_probe",
    now: new Date(),
    workspace: await adapter.workspace(),
  });
  for await (const u of adapter.users()) await sink.user(u);
  for await (const f of adapter.files()) await sink.file(f);
  for await (const d of adapter.sharedDrives()) await sink.drive(d);
  await sink.commit();
  const storeMs = performance.now() - t0;
  const events = await activity;
  const wallMs = performance.now() - t0;
  const client = process.cpuUsage(client0);
  const after = await backendsCpuMs();
  let pgMs = 0;
  for (const [pid, ms] of after) pgMs += ms - (before.get(pid) ?? 0);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    JSON.stringify({
      files: FILES,
      events: events.inserted,
      wall: s(wallMs),
      store: s(storeMs),
      clientCpu: s((client.user + client.system) / 1000),
      postgresCpu: s(pgMs),
      load: (await readFile("/proc/loadavg", "utf8")).split(" ").slice(0, 3).join(" "),
    }),
  );
} finally {
  await handle.close();
  await test.drop();
}
