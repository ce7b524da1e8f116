import { sql } from "drizzle-orm";
import { seedWorkspace } from "@posture/compliance/testing";
import { createTestDb } from "@posture/db/testing";
import { runChildReport } from "../lib/child";
import { seedOwnerWithKey } from "../lib/seed";
import type { TScenario } from "../types";

const FILES = 1_000_000;
const USERS = 5_000;
const TARGETS = { ms: 30_000, rssMb: 300 };

type TReport = { ms: number; maxRssMb: number; sizeBytes: number; fileCount: number; controlCount: number };

/** An evidence package (SOC 2, 90 days) for an organization with 1,000,000 files, built in its own process. */
export const evidence1m: TScenario = {
  name: "evidence-1m",
  title: `evidence package of a ${FILES.toLocaleString("en")}-file organization (builder in its own process)`,
  run: async () => {
    const db = await createTestDb();
    try {
      const owner = await seedOwnerWithKey(db.db, "business");
      const seedStart = performance.now();
      await seedWorkspace(db.db, {
        orgId: owner.orgId,
        users: USERS,
        files: FILES,
        scores: [60, 62, 65],
        apps: 40,
        auditEntries: 200,
        activity: 10_000,
      });
      // Findings as a scan of such a workspace leaves them: one per exposed file.
      await db.db
        .execute(sql`INSERT INTO findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category, severity,
          severity_rank, title, resource_id, resource_name, resource_type)
        SELECT 'fnd_' || f.id, f.org_id, f.connector_id, 'google_workspace', md5(f.id),
          CASE WHEN f.exposure = 'public' THEN 'public_link' ELSE 'external_share' END,
          CASE WHEN f.exposure = 'public' THEN 'public_exposure' ELSE 'external_sharing' END,
          CASE WHEN f.sensitivity = 'high' THEN 'CRITICAL' ELSE 'HIGH' END, CASE WHEN f.sensitivity = 'high' THEN 4 ELSE 3 END,
          'Shared file', f.id, f.name, 'file'
        FROM workspace_files f WHERE f.org_id = ${owner.orgId} AND f.exposure IN ('public', 'external')`);
      await db.db.execute(sql`ANALYZE`);
      const seedMs = performance.now() - seedStart;
      const r = await runChildReport<TReport>("evidence", {
        BENCH_DATABASE_URL: db.url,
        BENCH_ORG_ID: owner.orgId,
      });
      return {
        kind: "done",
        measurements: [],
        checks: [
          {
            label: "build time",
            ok: r.ms <= TARGETS.ms,
            detail: `${(r.ms / 1000).toFixed(2)} s (target ≤ ${TARGETS.ms / 1000} s)`,
          },
          {
            label: "builder peak RSS",
            ok: r.maxRssMb <= TARGETS.rssMb,
            detail: `${r.maxRssMb} MB (target ≤ ${TARGETS.rssMb} MB)`,
          },
        ],
        notes: [
          `package: ${r.fileCount} files, ${r.controlCount} controls, ${(r.sizeBytes / 1048576).toFixed(1)} MiB ZIP`,
          `seeding ${FILES.toLocaleString("en")} files, their permissions and findings took ${(seedMs / 1000).toFixed(1)} s (not measured)`,
        ],
      };
    } finally {
      await db.drop();
    }
  },
};
