import { createTestDb } from "@posture/db/testing";
import {
  ApiNotReadyError,
  describeScan,
  runApiScans,
  seconds,
  type TApiScanMode,
  type TSyncResult,
} from "../lib/api-scans";
import type { TCheck, TScenario } from "../types";

const FILES = Number(process.env.BENCH_SCAN_API_FILES ?? "100000");
const TARGETS = { firstMs: 10_000, fullRescanMs: 5_000, incrementalMs: 2_000 };
/** Both unless told (BENCH_SCAN_API_MODES=server or embedded). */
const MODES = (process.env.BENCH_SCAN_API_MODES ?? "server,embedded").split(",") as TApiScanMode[];

const STEPS = [
  { label: "first scan", body: {} },
  { label: "full rescan, nothing changed", body: { full: true } },
  { label: "incremental rescan, nothing changed", body: {} },
  { label: "incremental rescan, 1 % changed", body: { demo: { advance: 1 } } },
];

/** One mode's run: its own gateway child (and, for `server`, its own PostgreSQL database). */
async function runMode(settings: Parameters<TScenario["run"]>[0], mode: TApiScanMode) {
  const db = mode === "embedded" ? null : await createTestDb();
  try {
    const { results } = await runApiScans(settings, db, { mode, files: FILES, steps: STEPS });
    return results as [TSyncResult, TSyncResult, TSyncResult, TSyncResult];
  } finally {
    await db?.drop();
  }
}

function checksOf(
  mode: TApiScanMode,
  results: [TSyncResult, TSyncResult, TSyncResult, TSyncResult],
): TCheck[] {
  const [first, full, unchanged, changed] = results;
  return [
    {
      label: `${mode}: first scan`,
      ok: first.ms <= TARGETS.firstMs,
      detail: `${seconds(first.ms)} (target ≤ ${TARGETS.firstMs / 1000} s)`,
    },
    {
      label: `${mode}: full rescan, nothing changed`,
      ok: full.ms <= TARGETS.fullRescanMs && full.scan.kind === "full",
      detail: `${seconds(full.ms)}, kind ${full.scan.kind ?? "not reported"} (target ≤ ${TARGETS.fullRescanMs / 1000} s, full)`,
    },
    {
      label: `${mode}: full rescan found nothing new`,
      ok: full.scan.findingsNew === 0 && full.scan.findingsResolved === 0,
      detail: `new ${full.scan.findingsNew}, resolved ${full.scan.findingsResolved}`,
    },
    {
      label: `${mode}: incremental rescan, nothing changed`,
      ok:
        unchanged.ms <= TARGETS.incrementalMs &&
        unchanged.scan.kind === "incremental" &&
        unchanged.scan.findingsNew + unchanged.scan.findingsResolved === 0,
      detail: `${seconds(unchanged.ms)}, kind ${unchanged.scan.kind ?? "not reported"}, new ${unchanged.scan.findingsNew}, resolved ${unchanged.scan.findingsResolved} (target ≤ ${TARGETS.incrementalMs / 1000} s)`,
    },
    {
      label: `${mode}: incremental rescan, 1 % changed`,
      ok: changed.scan.kind === "incremental",
      detail: `${seconds(changed.ms)}, kind ${changed.scan.kind ?? "not reported"}, new ${changed.scan.findingsNew}, resolved ${changed.scan.findingsResolved}`,
    },
    {
      label: `${mode}: first scan's activity job and behaviour refresh, after it`,
      // Embedded: timed until the gateway is idle; its stored events are out of reach meanwhile.
      ok: first.behaviour.ms !== null && (first.behaviour.activityEvents ?? 1) > 0,
      detail: `${first.behaviour.ms === null ? "not finished" : seconds(first.behaviour.ms)}, ${first.behaviour.activityEvents === null ? "n/a" : first.behaviour.activityEvents.toLocaleString("en")} events stored`,
    },
  ];
}

/**
 * A 100,000-file demo workspace as a user scans it, over HTTP on the service as `pnpm start` runs
 * it, in each mode one after the other (each its own gateway child): `server` (PostgreSQL and
 * Redis, the scan on BullMQ, worked by the scheduler's workers in the same process) and
 * `embedded` (the default: PGlite in a fresh DATA_DIR, jobs in process). Each mode: its first
 * scan, a full rescan asked for explicitly (`{full: true}`) with nothing changed, an incremental
 * rescan with nothing changed, and one after the sandbox tenant moved a revision; each step's
 * note carries the scan's `timing` from the API. `scan-100k` times the same first scan and an
 * unchanged rescan through the scan job directly, under the scheduler's heap limit.
 */
export const scan100kApi: TScenario = {
  name: "scan-100k-api",
  title: `a ${FILES.toLocaleString("en")}-file demo workspace over HTTP (${MODES.join(" and ")}): first scan, full rescan, incremental rescans`,
  run: async (settings) => {
    try {
      const checks: TCheck[] = [];
      const notes: string[] = [];
      for (const mode of MODES) {
        const results = await runMode(settings, mode);
        checks.push(...checksOf(mode, results));
        notes.push(
          ...results.map((r) => `${mode}: ${describeScan(r)}`),
          `${mode}: peak RSS of the gateway that ran the scans (HTTP server and scheduler included, reset before each phase): scans ${Math.max(...results.map((r) => r.peakRssMb ?? 0))} MB, activity and behaviour after them ${Math.max(...results.map((r) => r.behaviour.peakRssMb ?? 0))} MB`,
        );
      }
      notes.push(
        "each sync timed from POST /api/connectors/{id}/sync to its scan's completion (GET …/scans/{scanId} every 2 s past the sync's wait); [job …] is the scan result's own `timing`: its wait in the queue, the job's total and each stage",
        "server: `dist/main.js --with-scheduler` (what `pnpm start` runs) with DATABASE_URL and REDIS_URL, GATEWAY_WORKERS=1: the sync enqueues on BullMQ and the scheduler's workers in the same process run the scan; embedded: the same with no DATABASE_URL or REDIS_URL, PGlite in a fresh DATA_DIR, the owner seeded before the start (so no demo seed)",
      );
      return { kind: "done", measurements: [], checks, notes };
    } catch (err) {
      if (err instanceof ApiNotReadyError) return { kind: "skipped", reason: err.message };
      throw err;
    }
  },
};
