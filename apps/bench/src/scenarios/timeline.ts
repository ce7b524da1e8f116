import { createTestDb } from "@posture/db/testing";
import { endpointVsBare } from "../lib/endpoint-vs-bare";
import { seedAudit, seedFindings, seedOwnerWithKey } from "../lib/seed";
import type { TScenario } from "../types";

const PATH = "/api/timeline?limit=50";
const FINDINGS = 20_000;
const AUDIT_ENTRIES = 200;

/** GET /api/timeline?limit=50: findings, scans, audit entries and grants merged, newest first. */
export const timeline: TScenario = {
  name: "timeline",
  title: `GET ${PATH} with an API key, ${FINDINGS.toLocaleString("en")} findings and ${AUDIT_ENTRIES} audit entries`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const owner = await seedOwnerWithKey(db.db, "business");
      await seedFindings(db.db, owner.orgId, FINDINGS);
      await seedAudit(db.db, owner, AUDIT_ENTRIES);
      return await endpointVsBare(settings, {
        databaseUrl: db.url,
        path: PATH,
        key: owner.key,
        targets: { minRatio: 0.6, maxP99Ms: 8 },
        describe: (body) => `response: ${(JSON.parse(body) as { items: unknown[] }).items.length} items`,
      });
    } finally {
      await db.drop();
    }
  },
};
