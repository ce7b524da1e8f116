import { createTestDb } from "@posture/db/testing";
import { runChildReport } from "../lib/child";
import { seedOwnerWithKey } from "../lib/seed";
import type { TScenario } from "../types";

const FILES = 100_000;
const SCHEDULER_HEAP_FLAG = "--max-old-space-size=256";
const TARGETS = { firstMs: 10_000, rescanMs: 5_000, rssMb: 300 };

type TScanReport = {
  files: number;
  first: { ms: number; result: { resources: number; findingsNew: number; postureScore: number } };
  rescan: { ms: number; result: { findingsNew: number; findingsResolved: number } };
  /** The activity job the scans queued, run after them: time, events stored, peak RSS by then. */
  activity: { ms: number; inserted: number; maxRssMb: number };
  findingCount: number;
  /** Peak RSS of the two scans, before the activity job ran. */
  maxRssMb: number;
};

/**
 * A demo workspace of 100,000 files scanned end to end (source → rules → diff → PostgreSQL), then
 * rescanned unchanged; then the activity job the scans queued, timed on its own.
 */
export const scan100k: TScenario = {
  name: "scan-100k",
  title: `scan of a ${FILES.toLocaleString("en")}-file demo workspace, an unchanged rescan, then its activity job (own process)`,
  run: async () => {
    const db = await createTestDb();
    try {
      const owner = await seedOwnerWithKey(db.db, "enterprise");
      const r = await runChildReport<TScanReport>(
        "scan",
        {
          BENCH_DATABASE_URL: db.url,
          BENCH_ORG_ID: owner.orgId,
          BENCH_FILES: String(FILES),
        },
        [SCHEDULER_HEAP_FLAG],
      );
      return {
        kind: "done",
        measurements: [],
        checks: [
          {
            label: "first scan",
            ok: r.first.ms <= TARGETS.firstMs,
            detail: `${(r.first.ms / 1000).toFixed(2)} s (target ≤ ${TARGETS.firstMs / 1000} s)`,
          },
          {
            label: "unchanged rescan",
            ok: r.rescan.ms <= TARGETS.rescanMs,
            detail: `${(r.rescan.ms / 1000).toFixed(2)} s (target ≤ ${TARGETS.rescanMs / 1000} s)`,
          },
          {
            label: "peak RSS of the scans",
            ok: r.maxRssMb <= TARGETS.rssMb,
            detail: `${r.maxRssMb} MB (target ≤ ${TARGETS.rssMb} MB)`,
          },
          {
            label: "activity job after the scans",
            ok: r.activity.inserted > 0 && r.activity.maxRssMb <= TARGETS.rssMb,
            detail: `${(r.activity.ms / 1000).toFixed(2)} s, ${r.activity.inserted.toLocaleString("en")} events stored, peak RSS ${r.activity.maxRssMb} MB (≤ ${TARGETS.rssMb} MB)`,
          },
          {
            label: "rescan found nothing new",
            ok: r.rescan.result.findingsNew === 0 && r.rescan.result.findingsResolved === 0,
            detail: `new ${r.rescan.result.findingsNew}, resolved ${r.rescan.result.findingsResolved}`,
          },
        ],
        notes: [
          `${r.first.result.resources.toLocaleString("en")} resources, ${r.first.result.findingsNew.toLocaleString("en")} findings stored, posture score ${r.first.result.postureScore}`,
          `peak RSS is the scanning process's maxRSS (getrusage), PostgreSQL not included; run with the scheduler's ${SCHEDULER_HEAP_FLAG}`,
        ],
      };
    } finally {
      await db.drop();
    }
  },
};
