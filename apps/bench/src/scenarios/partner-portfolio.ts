import { sql } from "drizzle-orm";
import { createTestDb } from "@posture/db/testing";
import { startGatewayChild, GATEWAY_ENV_NOTE } from "../lib/gateway";
import { measure } from "../lib/load";
import { seedOwnerWithKey } from "../lib/seed";
import type { TScenario } from "../types";

const CLIENTS = 500;
const SCANS_PER_CLIENT = 60;
const FINDINGS_PER_CLIENT = 200;
const PATH = "/api/partner/reports/portfolio";
const TARGET_P99_MS = 50;

/** GET /api/partner/reports/portfolio for a partner managing 500 organizations, each with history and findings. */
export const partnerPortfolio: TScenario = {
  name: "partner-portfolio",
  title: `GET ${PATH} for a partner with ${CLIENTS} client organizations`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const partner = await seedOwnerWithKey(db.db, "enterprise");
      await db.db.execute(sql`UPDATE organizations SET is_partner = true WHERE id = ${partner.orgId}`);
      await db.db.execute(sql`INSERT INTO organizations (id, name, plan, managed_by_org_id)
        SELECT 'org_bench_' || g, 'Client ' || lpad(g::text, 3, '0'), 'business', ${partner.orgId} FROM generate_series(1, ${CLIENTS}) g`);
      await db.db.execute(sql`INSERT INTO connectors (id, org_id, type, display_name, mode)
        SELECT 'con_bench_' || g, 'org_bench_' || g, 'google_workspace', 'Drive', 'demo' FROM generate_series(1, ${CLIENTS}) g`);
      await db.db
        .execute(sql`INSERT INTO scans (id, org_id, connector_id, connector_name, trigger, status, posture_score, completed_at)
        SELECT 'scn_bench_' || g || '_' || s, 'org_bench_' || g, 'con_bench_' || g, 'Drive', 'scheduled', 'COMPLETE',
          40 + (g * 7 + s) % 55, now() - (${SCANS_PER_CLIENT} - s) * interval '1 day'
        FROM generate_series(1, ${CLIENTS}) g, generate_series(1, ${SCANS_PER_CLIENT}) s`);
      await db.db
        .execute(sql`INSERT INTO findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category, severity,
          severity_rank, title, resource_id, resource_name, resource_type, status)
        SELECT 'fnd_bench_' || g || '_' || f, 'org_bench_' || g, 'con_bench_' || g, 'google_workspace', md5(g || ':' || f),
          'public_link', 'public_exposure', (array['CRITICAL','HIGH','MEDIUM','LOW'])[1 + f % 4], 4 - f % 4,
          'Finding', 'res_' || f, 'File ' || f, 'file', CASE WHEN f % 5 = 0 THEN 'RESOLVED' ELSE 'OPEN' END
        FROM generate_series(1, ${CLIENTS}) g, generate_series(1, ${FINDINGS_PER_CLIENT}) f`);
      // As autovacuum leaves a settled table: statistics and the visibility map (index-only counts).
      await db.db.execute(sql`VACUUM ANALYZE`);
      const gateway = await startGatewayChild(settings, db.url);
      try {
        const m = await measure(
          "gateway",
          gateway,
          { path: PATH, headers: { authorization: `Bearer ${partner.key}` } },
          settings,
        );
        const body = (await (
          await fetch(`${gateway.url}${PATH}`, { headers: { authorization: `Bearer ${partner.key}` } })
        ).json()) as {
          totals: { clients: number };
        };
        return {
          kind: "done",
          measurements: [m],
          checks: [
            {
              label: "p99 latency",
              ok: m.p99Ms <= TARGET_P99_MS,
              detail: `${m.p99Ms} ms (target ≤ ${TARGET_P99_MS} ms)`,
            },
            {
              label: "all answers 2xx",
              ok: m.non2xx === 0 && m.errors === 0,
              detail: `${m.non2xx} non-2xx, ${m.errors} errors`,
            },
          ],
          notes: [
            `response: ${body.totals.clients} clients; ${(CLIENTS * SCANS_PER_CLIENT).toLocaleString("en")} scans and ${(CLIENTS * FINDINGS_PER_CLIENT).toLocaleString("en")} findings in the database`,
            GATEWAY_ENV_NOTE,
          ],
        };
      } finally {
        await gateway.stop();
      }
    } finally {
      await db.drop();
    }
  },
};
