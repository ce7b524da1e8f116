import { writeHeapSnapshot } from "node:v8";
import { createDemoAdapter, type TSourceAdapter, type TSuiteType } from "@posture/connectors";
import { desc } from "drizzle-orm";
import { connectors, organizations, scans } from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { runBehaviourRefresh } from "@posture/ueba";
import { runActivityJob, runScanJob } from "./index";
import { scanOnlyDeps } from "./testing/scan-deps";

// A measurement, not a test: where a first scan's memory goes. One demo connector of MEASURE_FILES
// files (default 100,000) scanned in full (then, with MEASURE_RESCAN=1, again in full), with the
// process's memory sampled every 100 ms and the peak of each stage of the read printed: users,
// files, drives, grants, settings, then the commit and findings. MEASURE_ACTIVITY=1 then runs the
// activity job the scan queued and the behaviour refresh, each a stage of its own, as the
// scheduler's process would. MEASURE_SNAPSHOT=<stage>[@share] (e.g. `files@0.9`, `commit`) writes
// a heap snapshot there; MEASURE_SCAN=0 skips the scan. Run under the scheduler's heap limit:
//   node --max-old-space-size=256 --import tsx packages/scans/src/measure-memory.ts

const files = Number(process.env.MEASURE_FILES ?? "100000");
const [snapStage, snapShare] = (process.env.MEASURE_SNAPSHOT ?? "").split("@");
const db = await createTestDb();
const mb = (n: number) => Math.round(n / 1048576);

let stage = "start";
const peaks = new Map<string, { rss: number; heapUsed: number; external: number; arrayBuffers: number }>();
// MEASURE_LIVE=1 (with --expose-gc): a full collection before each sample, so the heap figure is what is live.
const collect = process.env.MEASURE_LIVE === "1" ? (globalThis as { gc?: () => void }).gc : undefined;
const sample = () => {
  collect?.();
  const m = process.memoryUsage();
  const p = peaks.get(stage) ?? { rss: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
  peaks.set(stage, {
    rss: Math.max(p.rss, m.rss),
    heapUsed: Math.max(p.heapUsed, m.heapUsed),
    external: Math.max(p.external, m.external),
    arrayBuffers: Math.max(p.arrayBuffers, m.arrayBuffers),
  });
};
const timer = setInterval(sample, collect ? 250 : 100);
let snapped = false;
const snapshot = () =>
  process.stderr.write(
    `heap snapshot: ${writeHeapSnapshot(`${process.env.MEASURE_SNAPSHOT_DIR ?? "."}/${stage}-${Date.now()}.heapsnapshot`)}\n`,
  );
const enter = (next: string) => {
  sample();
  stage = next;
  if (!snapped && snapStage === next && snapShare === undefined) {
    snapped = true;
    snapshot();
  }
};

/** The demo source, telling the sampler which stage the read is in. */
function staged(adapter: TSourceAdapter): TSourceAdapter {
  async function* mark<T>(name: string, items: AsyncIterable<T>, total?: number) {
    enter(name);
    let n = 0;
    for await (const item of items) {
      yield item;
      if (!snapped && snapStage === name && total && ++n >= total * Number(snapShare)) {
        snapped = true;
        snapshot();
      }
    }
  }
  return {
    ...adapter,
    users: () => mark("users", adapter.users()),
    files: () => mark("files", adapter.files(), files),
    sharedDrives: () => mark("drives", adapter.sharedDrives()),
    appGrants: () => mark("grants", adapter.appGrants()),
    tenantSettings: async () => {
      enter("settings");
      const s = await adapter.tenantSettings();
      enter("commit");
      return s;
    },
  };
}

// The scan alone: the activity job and the refresh it queues are not run.
const deps = scanOnlyDeps(db.db, {
  logLevel: process.env.MEASURE_LOG_LEVEL,
  adapterFor: (c) => staged(createDemoAdapter({ seed: c.id, type: c.type as TSuiteType, fileCount: files })),
});
try {
  const [org] = await db.db.insert(organizations).values({ name: "Measure", plan: "enterprise" }).returning();
  const [connector] = await db.db
    .insert(connectors)
    .values({ orgId: org?.id ?? "", type: "google_workspace", displayName: "Measure", mode: "demo" })
    .returning();
  if (!org || !connector) throw new Error("setup failed");
  // MEASURE_SCAN=0: no scan, only the activity job and the refresh (for a source's activity alone).
  const labels =
    process.env.MEASURE_SCAN === "0"
      ? []
      : process.env.MEASURE_RESCAN === "1"
        ? ["first", "rescan"]
        : ["first"];
  if (labels.length === 0)
    await db.db.insert(scans).values({
      orgId: org.id,
      connectorId: connector.id,
      connectorName: "Measure",
      trigger: "manual",
      status: "COMPLETE",
      completedAt: new Date(),
    });
  for (const label of labels) {
    const [row] = await db.db
      .insert(scans)
      .values({
        orgId: org.id,
        connectorId: connector.id,
        connectorName: "Measure",
        trigger: "manual",
        ...(label === "rescan" ? { kind: "full" as const, fullReason: "requested" as const } : {}),
      })
      .returning();
    if (!row) throw new Error("no scan");
    peaks.clear();
    const started = performance.now();
    const result = await runScanJob(deps, row.id, 1);
    enter("done");
    const ms = Math.round(performance.now() - started);
    const byStage = Object.fromEntries(
      [...peaks].map(([s, p]) => [
        s,
        `rss ${mb(p.rss)} heap ${mb(p.heapUsed)} ext ${mb(p.external)} ab ${mb(p.arrayBuffers)}`,
      ]),
    );
    process.stdout.write(
      `${JSON.stringify({ label, files, ms, resources: result.resources, findingsNew: result.findingsNew, maxRssMb: mb(process.resourceUsage().maxRSS * 1024), byStage })}\n`,
    );
  }
  if (process.env.MEASURE_ACTIVITY === "1") {
    const [last] = await db.db.select({ id: scans.id }).from(scans).orderBy(desc(scans.createdAt)).limit(1);
    peaks.clear();
    enter("activity");
    let started = performance.now();
    const activity = await runActivityJob(deps, { connectorId: connector.id, scanId: last?.id ?? "" }, 1);
    const activityMs = Math.round(performance.now() - started);
    enter("refresh");
    started = performance.now();
    const refresh = await runBehaviourRefresh(deps, org.id);
    const refreshMs = Math.round(performance.now() - started);
    enter("done");
    const byStage = Object.fromEntries(
      [...peaks].map(([s, p]) => [s, `rss ${mb(p.rss)} heap ${mb(p.heapUsed)} ext ${mb(p.external)}`]),
    );
    process.stdout.write(
      `${JSON.stringify({ label: "activity, refresh", activityMs, inserted: activity.inserted, refreshMs, principals: refresh.principals, maxRssMb: mb(process.resourceUsage().maxRSS * 1024), byStage })}\n`,
    );
  }
} finally {
  clearInterval(timer);
  await db.drop();
}
