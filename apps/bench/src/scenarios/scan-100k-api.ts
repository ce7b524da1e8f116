import { createTestDb } from "@posture/db/testing";
import { ApiNotReadyError, describeScan, runApiScans, seconds, type TSyncResult } from "../lib/api-scans";
import type { TScenario } from "../types";

const FILES = Number(process.env.BENCH_SCAN_API_FILES ?? "100000");
const TARGETS = { firstMs: 10_000, fullRescanMs: 5_000, incrementalMs: 2_000 };

/**
 * A 100,000-file demo workspace as a user scans it, over HTTP: its first scan, a full rescan asked
 * for explicitly (`{full: true}`) with nothing changed, an incremental rescan with nothing changed,
 * and one after the sandbox tenant moved a revision. `scan-100k` times the same first scan and an
 * unchanged rescan through the scan job directly, under the scheduler's heap limit.
 */
export const scan100kApi: TScenario = {
  name: "scan-100k-api",
  title: `a ${FILES.toLocaleString("en")}-file demo workspace over HTTP: first scan, full rescan, incremental rescans`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const { results } = await runApiScans(settings, db, {
        files: FILES,
        steps: [
          { label: "first scan", body: {} },
          { label: "full rescan, nothing changed", body: { full: true } },
          { label: "incremental rescan, nothing changed", body: {} },
          { label: "incremental rescan, 1 % changed", body: { demo: { advance: 1 } } },
        ],
      });
      const [first, full, unchanged, changed] = results as [
        TSyncResult,
        TSyncResult,
        TSyncResult,
        TSyncResult,
      ];
      return {
        kind: "done",
        measurements: [],
        checks: [
          {
            label: "first scan",
            ok: first.ms <= TARGETS.firstMs,
            detail: `${seconds(first.ms)} (target ≤ ${TARGETS.firstMs / 1000} s)`,
          },
          {
            label: "full rescan, nothing changed",
            ok: full.ms <= TARGETS.fullRescanMs && full.scan.kind === "full",
            detail: `${seconds(full.ms)}, kind ${full.scan.kind ?? "not reported"} (target ≤ ${TARGETS.fullRescanMs / 1000} s, full)`,
          },
          {
            label: "full rescan found nothing new",
            ok: full.scan.findingsNew === 0 && full.scan.findingsResolved === 0,
            detail: `new ${full.scan.findingsNew}, resolved ${full.scan.findingsResolved}`,
          },
          {
            label: "incremental rescan, nothing changed",
            ok:
              unchanged.scan.kind === "incremental" &&
              unchanged.scan.findingsNew + unchanged.scan.findingsResolved === 0,
            detail: `${seconds(unchanged.ms)}, kind ${unchanged.scan.kind ?? "not reported"}, new ${unchanged.scan.findingsNew}, resolved ${unchanged.scan.findingsResolved}`,
          },
          {
            label: "incremental rescan, 1 % changed",
            ok: changed.scan.kind === "incremental",
            detail: `${seconds(changed.ms)}, kind ${changed.scan.kind ?? "not reported"}, new ${changed.scan.findingsNew}, resolved ${changed.scan.findingsResolved}`,
          },
          {
            label: "first scan's activity job and behaviour refresh, after it",
            ok: first.behaviour.ms !== null && first.behaviour.activityEvents > 0,
            detail: `${first.behaviour.ms === null ? "not finished" : seconds(first.behaviour.ms)}, ${first.behaviour.activityEvents.toLocaleString("en")} events stored`,
          },
        ],
        notes: [
          ...results.map(describeScan),
          `peak RSS of the gateway that ran the scans (HTTP server included, reset before each phase): scans ${Math.max(...results.map((r) => r.peakRssMb ?? 0))} MB, activity and behaviour after them ${Math.max(...results.map((r) => r.behaviour.peakRssMb ?? 0))} MB`,
        ],
      };
    } catch (err) {
      if (err instanceof ApiNotReadyError) return { kind: "skipped", reason: err.message };
      throw err;
    } finally {
      await db.drop();
    }
  },
};
