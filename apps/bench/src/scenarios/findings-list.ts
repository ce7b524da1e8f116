import { sql } from "drizzle-orm";
import { connectors } from "@posture/db";
import { createTestDb } from "@posture/db/testing";
import { endpointVsBare } from "../lib/endpoint-vs-bare";
import { seedOwnerWithKey } from "../lib/seed";
import type { TScenario } from "../types";

const FINDINGS = 100_000;
const PATH = "/api/findings?limit=50";

/** GET /api/findings?limit=50 with 100,000 findings in the organization, against a bare Express route. */
export const findingsList: TScenario = {
  name: "findings-list",
  title: `GET ${PATH} with an API key, ${FINDINGS.toLocaleString("en")} findings in the organization`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const owner = await seedOwnerWithKey(db.db, "business");
      const [connector] = await db.db
        .insert(connectors)
        .values({ orgId: owner.orgId, type: "google_workspace", displayName: "Bench", mode: "demo" })
        .returning();
      // Generated in the database: a realistic spread of severities, categories and detection times.
      await db.db.execute(sql`
        insert into findings (id, org_id, connector_id, connector_type, fingerprint, rule_id, category, severity,
          severity_rank, title, resource_id, resource_name, resource_type, status, detected_at)
        select 'fnd_bench_' || g, ${owner.orgId}, ${connector?.id ?? ""}, 'google_workspace', md5(g::text),
          (array['public_link','external_share','user_without_mfa','app_broad_scopes'])[1 + g % 4],
          (array['public_exposure','external_sharing','identity','third_party_apps'])[1 + g % 4],
          (array['CRITICAL','HIGH','MEDIUM','LOW'])[1 + (g * 7) % 4], 4 - (g * 7) % 4,
          'Finding ' || g, 'res_' || g, 'File ' || g || '.xlsx', 'file',
          case when g % 10 = 0 then 'RESOLVED' else 'OPEN' end,
          now() - (g || ' seconds')::interval
        from generate_series(1, ${FINDINGS}) g`);
      await db.db.execute(sql`analyze findings`);
      return await endpointVsBare(settings, {
        databaseUrl: db.url,
        path: PATH,
        key: owner.key,
        targets: { minRatio: 0.6, maxP99Ms: 8 },
        describe: (body) =>
          `response: ${(JSON.parse(body) as { findings: unknown[] }).findings.length} findings`,
      });
    } finally {
      await db.drop();
    }
  },
};
