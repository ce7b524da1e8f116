import { createTestDb } from "@posture/db/testing";
import { endpointVsBare } from "../lib/endpoint-vs-bare";
import { seedFindings, seedOwnerWithKey } from "../lib/seed";
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
      await seedFindings(db.db, owner.orgId, FINDINGS);
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
