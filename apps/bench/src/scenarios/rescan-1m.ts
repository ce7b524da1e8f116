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

const FILES = Number(process.env.BENCH_RESCAN_FILES ?? "1000000");
/** `in-process` (as before) unless told: BENCH_RESCAN_MODE=server or embedded runs it as `pnpm start` does. */
const MODE = (process.env.BENCH_RESCAN_MODE ?? "in-process") as TApiScanMode;
const TARGETS = { firstMs: 90_000, unchangedMs: 2_000, changedMs: 10_000, rssMb: 300 };

/**
 * The 1,000,000-file organization kept up to date from the change feeds, through the public API:
 * a sized demo connector's first scan, an incremental rescan with nothing changed, and one after
 * the sandbox tenant moved a revision (≈ 1 % of its files changed).
 */
export const rescan1m: TScenario = {
  name: "rescan-1m",
  title: `incremental rescans of a ${FILES.toLocaleString("en")}-file demo organization over HTTP: nothing changed, then 1 % of files changed`,
  run: async (settings) => {
    const db = MODE === "embedded" ? null : await createTestDb();
    try {
      const { results } = await runApiScans(settings, db, {
        mode: MODE,
        files: FILES,
        steps: [
          { label: "first scan", body: {} },
          { label: "unchanged incremental rescan", body: {} },
          { label: "1 % changed incremental rescan", body: { demo: { advance: 1 } } },
        ],
      });
      const [first, unchanged, changed] = results as [TSyncResult, TSyncResult, TSyncResult];
      // Each sync's own peak (the gateway's high-water mark is reset before it), without the activity job after it.
      const scansPeakMb = Math.max(...results.map((r) => r.peakRssMb ?? 0));
      const checks: TCheck[] = [
        {
          label: "first scan",
          ok: first.ms <= TARGETS.firstMs,
          detail: `${seconds(first.ms)} (target ≤ ${TARGETS.firstMs / 1000} s)`,
        },
        {
          label: "incremental rescan, nothing changed",
          ok: unchanged.ms <= TARGETS.unchangedMs && unchanged.scan.kind === "incremental",
          detail: `${seconds(unchanged.ms)}, kind ${unchanged.scan.kind ?? "not reported"} (target ≤ ${TARGETS.unchangedMs / 1000} s, incremental)`,
        },
        {
          label: "incremental rescan, 1 % of files changed",
          ok: changed.ms <= TARGETS.changedMs && changed.scan.kind === "incremental",
          detail: `${seconds(changed.ms)}, kind ${changed.scan.kind ?? "not reported"} (target ≤ ${TARGETS.changedMs / 1000} s, incremental)`,
        },
        {
          label: "nothing changed, nothing new",
          ok: unchanged.scan.findingsNew === 0 && unchanged.scan.findingsResolved === 0,
          detail: `new ${unchanged.scan.findingsNew}, resolved ${unchanged.scan.findingsResolved}`,
        },
        {
          label: "a changed tenant changes findings",
          ok: changed.scan.findingsNew + changed.scan.findingsResolved > 0,
          detail: `new ${changed.scan.findingsNew}, resolved ${changed.scan.findingsResolved}`,
        },
        {
          label: "peak RSS of the process that scanned, during the scans",
          ok: scansPeakMb <= TARGETS.rssMb,
          detail: `${scansPeakMb} MB (target ≤ ${TARGETS.rssMb} MB)`,
        },
        {
          label: "first scan's activity job and behaviour refresh, after it",
          ok: first.behaviour.ms !== null && (first.behaviour.activityEvents ?? 1) > 0,
          detail: `${first.behaviour.ms === null ? "not finished" : seconds(first.behaviour.ms)}, ${first.behaviour.activityEvents?.toLocaleString("en") ?? "n/a"} events stored, peak RSS ${first.behaviour.peakRssMb ?? "n/a"} MB`,
        },
      ];
      return {
        kind: "done",
        measurements: [],
        checks,
        notes: [
          ...results.map(describeScan),
          `mode ${MODE} (BENCH_RESCAN_MODE: server, embedded or in-process)`,
          "each sync timed from POST /api/connectors/{id}/sync to its scan's completion; the activity job and behaviour refresh the scan queued timed after it, until the refresh wrote its baselines; the gateway's production build runs the scans itself (in-process jobs, no REDIS_URL), so its peak RSS (VmHWM, reset before each phase) includes the HTTP server",
        ],
      };
    } catch (err) {
      if (err instanceof ApiNotReadyError) return { kind: "skipped", reason: err.message };
      throw err;
    } finally {
      await db?.drop();
    }
  },
};
