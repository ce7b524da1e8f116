import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { scans } from "@posture/db";
import { buildJobRegistry } from "@posture/composition/jobs";
import { createInProcessQueue, type TJobRegistry } from "@posture/jobs";
import { SCAN_JOB, sweepDueScans } from "@posture/scans";
import { randomClientIp, useTestGateway } from "../../testing";

// The daily sweep against manual syncs and against itself (two schedulers): a source whose scan
// is queued or running is not due, so no source is ever scanned twice at once. Before, the sweep
// took a source whose first manual scan had not finished for one never scanned and queued a
// scheduled scan beside it (14 of 18 sources scanned twice under load).

const SOURCES = 18;
const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

// The real scan job behind a gate the test opens, counting the runs of each source's scans.
let gate: Promise<void> = Promise.resolve();
let openGate: () => void = () => {};
const closeGate = () => {
  gate = new Promise<void>((resolve) => (openGate = resolve));
};
const runs = new Map<string, number>();
let registry: TJobRegistry | undefined;
// The embedded queue with its default limits: 4 scans at once, 2 of one organization's.
const jobs = createInProcessQueue(() => {
  if (!registry) throw new Error("registry used before the gateway started");
  return registry;
});

const gw = useTestGateway(() => ({ jobs, redisUrl: null }));

function startRegistry() {
  const real = buildJobRegistry({ db: gw.db.db, jobs, runtime: gw.gateway.deps.runtime, log: silent });
  const scan = real[SCAN_JOB];
  if (!scan) throw new Error("no scan job");
  registry = {
    ...real,
    [SCAN_JOB]: {
      ...scan,
      handler: async (data, ctx) => {
        const { scanId } = data as { scanId: string };
        const [row] = await gw.db.db
          .select({ connectorId: scans.connectorId })
          .from(scans)
          .where(eq(scans.id, scanId));
        const key = row?.connectorId ?? "?";
        runs.set(key, (runs.get(key) ?? 0) + 1);
        await gate;
        return scan.handler(data, ctx);
      },
    },
  };
}

async function connectSources(cookie: string, ip: string, name: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < SOURCES; i++) {
    const res = await gw.request("POST", "/api/connectors", {
      cookie,
      ip,
      body: { type: "google_workspace", displayName: `${name} ${i}`, mode: "demo", config: { fileCount: 5 } },
    });
    expect(res.status).toBe(201);
    ids.push((res.body as { id: string }).id);
  }
  return ids;
}

const scansOf = (connectorIds: string[]) =>
  gw.db.db
    .select({ connectorId: scans.connectorId, trigger: scans.trigger, status: scans.status })
    .from(scans)
    .where(inArray(scans.connectorId, connectorIds));

/** Scans per source: how many rows, and how many times the scan job ran for it. */
async function perSource(connectorIds: string[]) {
  const rows = await scansOf(connectorIds);
  return connectorIds.map((id) => ({
    rows: rows.filter((r) => r.connectorId === id).length,
    runs: runs.get(id) ?? 0,
  }));
}

async function until(what: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sweeper = () => ({ db: gw.db.db, jobs });
const once = Array.from({ length: SOURCES }, () => ({ rows: 1, runs: 1 }));

describe("the scan sweep", () => {
  it("leaves alone every source whose first manual scan is queued or running", async () => {
    startRegistry();
    const a = await gw.createActor({ plan: "enterprise" });
    const ip = randomClientIp();
    const ids = await connectSources(a.cookie, ip, "First");
    closeGate();
    const syncs = ids.map((id) => gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie, ip }));
    await until("every manual scan to be queued", async () => (await scansOf(ids)).length === SOURCES);

    // Two schedulers sweep while the 18 first scans run: nothing is due.
    const queued = await Promise.all([sweepDueScans(sweeper()), sweepDueScans(sweeper())]);
    expect(queued).toEqual([0, 0]);

    openGate();
    const answered = await Promise.all(syncs);
    expect(answered.map((r) => [r.status, (r.body as { status: string }).status])).toEqual(
      ids.map(() => [200, "COMPLETE"]),
    );
    expect(await perSource(ids)).toEqual(once);
    expect(new Set((await scansOf(ids)).map((r) => r.trigger))).toEqual(new Set(["manual"]));
    // Scanned now, the sources are not due later today either.
    expect(await sweepDueScans(sweeper())).toBe(0);
  }, 60_000);

  it("two sweeps and a manual sync of every source at the same moment start one scan per source", async () => {
    const a = await gw.createActor({ plan: "enterprise" });
    const ip = randomClientIp();
    const ids = await connectSources(a.cookie, ip, "Race");
    closeGate();
    const syncs = ids.map((id) => gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie, ip }));
    const queued = await Promise.all([sweepDueScans(sweeper()), sweepDueScans(sweeper())]);
    await until("a scan of every source", async () => {
      const rows = await scansOf(ids);
      return ids.every((id) => rows.some((r) => r.connectorId === id));
    });
    // Each source's scan is the sweep's or the sync's: the other joined it.
    const rows = await scansOf(ids);
    expect(queued[0] + queued[1]).toBe(rows.filter((r) => r.trigger === "scheduled").length);
    expect(ids.map((id) => rows.filter((r) => r.connectorId === id).length)).toEqual(ids.map(() => 1));

    openGate();
    const answered = await Promise.all(syncs);
    expect(answered.map((r) => [r.status, (r.body as { status: string }).status])).toEqual(
      ids.map(() => [200, "COMPLETE"]),
    );
    expect(await perSource(ids)).toEqual(once);
    const done = await scansOf(ids);
    expect(done.map((r) => r.status)).toEqual(ids.map(() => "COMPLETE"));
  }, 60_000);
});
