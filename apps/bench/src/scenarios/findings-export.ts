import { sql } from "drizzle-orm";
import { connectors, scans, type Db } from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { peakRssMb, resetPeakRss } from "../lib/child";
import { GATEWAY_ENV_NOTE, startGatewayChild } from "../lib/gateway";
import { seedOwnerWithKey } from "../lib/seed";
import type { TCheck, TScenario } from "../types";

const FINDINGS = Number(process.env.BENCH_EXPORT_FINDINGS ?? "1000000");
const FORMATS = ["ndjson", "csv", "ocsf"] as const;
const TARGETS = { ms: 30_000, rssMb: 250 };

/**
 * `count` findings written straight into the store with generate_series, as scans leave them:
 * every severity and status, one in 50 a failing tenant-setting check carrying its benchmark, all
 * last seen by one completed scan.
 */
async function seedExportFindings(db: Db, orgId: string, count: number): Promise<void> {
  const [connector] = await db
    .insert(connectors)
    .values({ orgId, type: "google_workspace", displayName: "Bench", mode: "demo" })
    .returning();
  const [scan] = await db
    .insert(scans)
    .values({
      orgId,
      connectorId: connector?.id ?? null,
      connectorName: "Bench",
      trigger: "manual",
      status: "COMPLETE",
      startedAt: new Date(Date.now() - 120_000),
      completedAt: new Date(Date.now() - 60_000),
    })
    .returning();
  // One long write: the bench lifts the 5 s statement bound for its own transaction.
  await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL statement_timeout = 0`);
    await tx.execute(sql`
    INSERT INTO findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category, severity,
      severity_rank, title, resource_id, resource_name, resource_type, status, resolved_at, details,
      detected_at, last_seen_scan_id)
    SELECT 'fnd_bench_' || g, ${orgId}, ${connector?.id ?? ""}, 'google_workspace', md5(g::text),
      CASE WHEN g % 50 = 0 THEN 'gws_2sv_enforced' ELSE (array['public_link','external_share','user_without_mfa','app_broad_scopes'])[1 + g % 4] END,
      CASE WHEN g % 50 = 0 THEN 'tenant_configuration' ELSE (array['public_exposure','external_sharing','identity','third_party_apps'])[1 + g % 4] END,
      (array['CRITICAL','HIGH','MEDIUM','LOW'])[1 + (g * 7) % 4], 4 - (g * 7) % 4,
      'Finding ' || g || ': "Quarterly, report" shared', 'res_' || g, 'File ' || g || '.xlsx', 'file',
      CASE WHEN g % 10 = 0 THEN 'RESOLVED' ELSE 'OPEN' END,
      CASE WHEN g % 10 = 0 THEN now() - (g || ' seconds')::interval + interval '1 hour' END,
      CASE WHEN g % 50 = 0 THEN jsonb_build_object(
        'benchmark', jsonb_build_object('name', 'CIS Google Workspace Foundations', 'version', '1.3.0', 'id', '4.1.1.1'),
        'settings', jsonb_build_object('security.2sv.enforced', false),
        'expected', 'enforced for every user', 'fix', 'Admin console > Security > 2-step verification')
        ELSE '{}'::jsonb END,
      now() - (g || ' seconds')::interval, ${scan?.id ?? null}
    FROM generate_series(1, ${count}::int) g`);
  });
  // Statistics, as autovacuum would gather them (VACUUM may not run inside the transaction that
  // lifts the statement bound; the export reads the heap anyway).
  await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL statement_timeout = 0`);
    await tx.execute(sql`ANALYZE findings`);
  });
}

async function download(url: string, key: string) {
  const start = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}: ${await res.text()}`);
  let firstByteMs: number | null = null;
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    firstByteMs ??= performance.now() - start;
    bytes += chunk.byteLength;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { ms: performance.now() - start, firstByteMs: firstByteMs ?? 0, bytes, lines };
}

/** GET /api/findings/export of 1,000,000 findings in each format, through the production gateway. */
export const findingsExport: TScenario = {
  name: "findings-export",
  title: `GET /api/findings/export?status=all of ${FINDINGS.toLocaleString("en")} findings as ${FORMATS.join(", ")}, through the gateway`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const owner = await seedOwnerWithKey(db.db, "business");
      const seedStart = performance.now();
      await seedExportFindings(db.db, owner.orgId, FINDINGS);
      const seedMs = performance.now() - seedStart;
      const gateway = await startGatewayChild(settings, db.url);
      const checks: TCheck[] = [];
      const notes: string[] = [GATEWAY_ENV_NOTE];
      try {
        const idleMb = await gateway.rssMb();
        for (const format of FORMATS) {
          await resetPeakRss(gateway.pid);
          const cpuBefore = await gateway.cpuMs();
          const r = await download(
            `${gateway.url}/api/findings/export?format=${format}&status=all`,
            owner.key,
          );
          const peak = await peakRssMb(gateway.pid);
          const cpuAfter = await gateway.cpuMs();
          // The gateway's own CPU time: what the export costs whatever else the machine runs.
          const cpu =
            cpuBefore === null || cpuAfter === null
              ? "n/a"
              : `${((cpuAfter - cpuBefore) / 1000).toFixed(1)} s`;
          // CSV has a header line and may hold line breaks inside quoted cells (none here).
          const rows = format === "csv" ? r.lines - 1 : r.lines;
          checks.push(
            {
              label: `${format}: time`,
              ok: r.ms <= TARGETS.ms && rows === FINDINGS,
              detail: `${(r.ms / 1000).toFixed(2)} s for ${rows.toLocaleString("en")} findings, ${(r.bytes / 1048576).toFixed(0)} MiB, first byte after ${r.firstByteMs.toFixed(0)} ms, gateway CPU ${cpu} (target ≤ ${TARGETS.ms / 1000} s)`,
            },
            {
              label: `${format}: gateway peak RSS`,
              ok: peak !== null && peak <= TARGETS.rssMb,
              detail: `${peak ?? "n/a"} MB (target ≤ ${TARGETS.rssMb} MB)`,
            },
          );
        }
        notes.push(`gateway RSS before the exports: ${idleMb === null ? "n/a" : idleMb.toFixed(0)} MB`);
      } finally {
        await gateway.stop();
      }
      notes.push(
        `seeding ${FINDINGS.toLocaleString("en")} findings took ${(seedMs / 1000).toFixed(1)} s (not measured)`,
      );
      return { kind: "done", measurements: [], checks, notes };
    } finally {
      await db.drop();
    }
  },
};
