import { eq } from "drizzle-orm";
import { connectors, createDb, scans } from "@posture/db";
import { runActivityJob, runScanJob } from "@posture/scans";
import { getHeapStatistics } from "node:v8";
import { benchScanDeps } from "../lib/scan-deps";

// Runs in its own process so its peak RSS is the scan's own: a demo workspace of
// BENCH_FILES files scanned twice (the second time unchanged, read in full as `{full: true}`
// asks: the sandbox's change feed would otherwise make it incremental), through the real scan
// job and the real database, then the activity job the scans queued (one for both, as two scans
// in a row share one), timed on its own. Prints one JSON line. The pool has room for the scan's
// snapshot connection and the job's own reads.
const db = createDb({ databaseUrl: process.env.BENCH_DATABASE_URL ?? "", poolSize: 4 });
const orgId = process.env.BENCH_ORG_ID ?? "";
const fileCount = Number(process.env.BENCH_FILES ?? "100000");
const deps = benchScanDeps(db.db);

const [connector] = await db.db
  .insert(connectors)
  .values({ orgId, type: "google_workspace", displayName: "Bench 100k", mode: "demo", config: { fileCount } })
  .returning();
if (!connector) throw new Error("connector insert failed");

async function timedScan(full: boolean) {
  const [scan] = await db.db
    .insert(scans)
    .values({
      orgId,
      connectorId: connector?.id,
      connectorName: "Bench 100k",
      trigger: "manual",
      ...(full ? { kind: "full" as const, fullReason: "requested" as const } : {}),
    })
    .returning();
  if (!scan) throw new Error("scan insert failed");
  const started = performance.now();
  const result = await runScanJob(deps, scan.id, 1);
  return { ms: Math.round(performance.now() - started), result };
}

const maxRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const first = await timedScan(false);
const afterFirstMaxRssMb = maxRssMb();
const rescan = await timedScan(true);
const scansMaxRssMb = maxRssMb();
const queued = deps.activityQueued();
if (!queued) throw new Error("the scans queued no activity job");
const activityStarted = performance.now();
const ingested = await runActivityJob(deps, queued, 1);
const activity = {
  ms: Math.round(performance.now() - activityStarted),
  inserted: ingested.inserted,
  maxRssMb: maxRssMb(),
};
const [stored] = await db.db
  .select({ findingCount: connectors.findingCount })
  .from(connectors)
  .where(eq(connectors.id, connector.id));
process.stdout.write(
  `${JSON.stringify({
    files: fileCount,
    first,
    rescan,
    activity,
    findingCount: stored?.findingCount ?? 0,
    maxRssMb: scansMaxRssMb,
    heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 1e6),
    afterFirstMaxRssMb,
  })}\n`,
);
await db.close();
