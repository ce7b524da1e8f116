import { eq, sql } from "drizzle-orm";
import { connectors, createDb, queryRows, scans, workspaceUsers } from "@posture/db";
import { getFlowGraph } from "@posture/flow-guard";
import { runScanJob } from "@posture/scans";
import { getInventory, listSharingItems } from "@posture/workspace";
import { createLogger } from "@posture/platform";
import { benchScanDeps } from "../lib/scan-deps";

// Own process: the first scan of a BENCH_FILES-file demo workspace with the full resource store
// (peak RSS is the scan's), then the exposure reads on the stored organization over ONE
// connection, warm: inventory search, a sharing page sorted by risk, a 500-node graph page.
// Each scan's stages are read from its "scan finished" log record; after the reads, a rescan
// of the tenant one revision on (≈ 1 % of its files changed), so the parent can time the AI
// exposure reads over HTTP on an organization kept up to date incrementally.
const url = process.env.BENCH_DATABASE_URL ?? "";
// Room for the scan's snapshot connection and the job's own reads (the activity job is not run here).
const db = createDb({ databaseUrl: url, poolSize: 4 });
const orgId = process.env.BENCH_ORG_ID ?? "";
const fileCount = Number(process.env.BENCH_FILES ?? "1000000");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? "200");
// The "scan finished" records (each stage's ms), kept from an info logger of the child's own.
const finished: Array<{ kind: string; stages: Record<string, number> }> = [];
const deps = {
  ...benchScanDeps(db.db),
  log: createLogger("info", {
    write: (line: string) => {
      const v = JSON.parse(line) as { msg?: string; kind?: string; stages?: Record<string, number> };
      if (v.msg === "scan finished" && v.stages) finished.push({ kind: v.kind ?? "", stages: v.stages });
    },
  }),
};

const [connector] = await db.db
  .insert(connectors)
  .values({
    orgId,
    type: "google_workspace",
    displayName: "Bench exposure",
    mode: "demo",
    config: { fileCount },
  })
  .returning();
if (!connector) throw new Error("connector insert failed");
const [scan] = await db.db
  .insert(scans)
  .values({ orgId, connectorId: connector.id, connectorName: "Bench exposure", trigger: "manual" })
  .returning();
if (!scan) throw new Error("scan insert failed");
const started = performance.now();
const result = await runScanJob(deps, scan.id, 1);
const scanMs = Math.round(performance.now() - started);
if (result.status !== "COMPLETE") throw new Error(`scan ended ${result.status}`);
const scanMaxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
// The tables as autovacuum leaves them soon after a load (statistics and the visibility map), so
// the reads measure the steady state rather than a vacuum running beside them. VACUUM cannot run
// in a transaction: its own session, without the request bound.
const maintenance = createDb({ databaseUrl: url, poolSize: 1, statementTimeoutMs: 0 });
const vacuumStarted = performance.now();
await maintenance.db.execute("vacuum (analyze)");
const vacuumMs = Math.round(performance.now() - vacuumStarted);
await maintenance.close();

// One revision on: the sandbox tenant's day of changes, read incrementally.
await db.db
  .update(connectors)
  .set({ config: sql`jsonb_set(${connectors.config}, '{revision}', '1'::jsonb)` })
  .where(eq(connectors.id, connector.id));
const [rescanRow] = await db.db
  .insert(scans)
  .values({ orgId, connectorId: connector.id, connectorName: "Bench exposure", trigger: "manual" })
  .returning();
if (!rescanRow) throw new Error("scan insert failed");
const rescanStarted = performance.now();
const rescan = await runScanJob(deps, rescanRow.id, 1);
const rescanMs = Math.round(performance.now() - rescanStarted);
if (rescan.status !== "COMPLETE") throw new Error(`rescan ended ${rescan.status}`);
const countOf = async (q: ReturnType<typeof sql>) =>
  Number((await queryRows<{ n: number }>(db.db, q))[0]?.n ?? 0);
const groupCount = await countOf(
  sql`SELECT count(*)::int AS n FROM workspace_groups WHERE org_id = ${orgId}`,
);
const assistantUsers = await countOf(
  sql`SELECT count(*)::int AS n FROM workspace_users WHERE org_id = ${orgId} AND cardinality(assistants) > 0`,
);

const one = createDb({ databaseUrl: url, poolSize: 1 });
const users = await one.db
  .select({ email: workspaceUsers.email })
  .from(workspaceUsers)
  .where(eq(workspaceUsers.orgId, orgId))
  .orderBy(workspaceUsers.email);
// A user from the middle of the directory: a typical, not the heaviest, owner.
const email = users[Math.floor(users.length / 2)]?.email ?? "";
const local = email.split("@")[0] ?? "";

async function p99(fn: () => Promise<unknown>) {
  for (let i = 0; i < 20; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 100) / 100;
  return { p50: at(0.5), p99: at(0.99) };
}

const searchUsers = await p99(() =>
  getInventory(one.db, { orgId, type: "users", search: local, limit: 50, offset: 0 }),
);
const searchFiles = await p99(() =>
  getInventory(one.db, { orgId, type: "files", search: local, limit: 50, offset: 0 }),
);
const searchFilesName = await p99(() =>
  getInventory(one.db, { orgId, type: "files", search: "salary bands", limit: 50, offset: 0 }),
);
const sharing = await p99(() => listSharingItems(one.db, { orgId, sort: "riskRank", limit: 50, offset: 0 }));
const sharingDeep = await p99(() =>
  listSharingItems(one.db, { orgId, sort: "riskRank", limit: 50, offset: 5_000 }),
);
const graph = await p99(() => getFlowGraph(one.db, { orgId, limit: 500, offset: 0 }));
const counts = await getInventory(one.db, { orgId, type: "files", search: local, limit: 1, offset: 0 });
const sharingTotal = (await listSharingItems(one.db, { orgId, sort: "riskRank", limit: 1, offset: 0 })).total;
const graphTotal = (await getFlowGraph(one.db, { orgId, limit: 1, offset: 0 })).metadata.totalNodes;

process.stdout.write(
  `${JSON.stringify({
    files: fileCount,
    scan: { ms: scanMs, resources: result.resources, findingsNew: result.findingsNew, status: result.status },
    scanMaxRssMb,
    vacuumMs,
    stages: finished[0]?.stages ?? {},
    rescan: {
      ms: rescanMs,
      kind: finished[1]?.kind ?? "",
      findingsNew: rescan.findingsNew,
      findingsResolved: rescan.findingsResolved,
      stages: finished[1]?.stages ?? {},
    },
    directory: { users: users.length, assistantUsers, groups: groupCount },
    search: {
      term: local,
      users: searchUsers,
      files: searchFiles,
      filesMatched: counts.total,
      filesByName: searchFilesName,
    },
    sharing: { firstPage: sharing, offset5000: sharingDeep, total: sharingTotal },
    graph: { page500: graph, totalNodes: graphTotal },
  })}\n`,
);
await one.close();
await db.close();
