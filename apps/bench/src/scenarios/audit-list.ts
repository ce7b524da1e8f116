import { createTestDb } from "@posture/db/testing";
import { endpointVsBare } from "../lib/endpoint-vs-bare";
import { seedAudit, seedOwnerWithKey } from "../lib/seed";
import type { TScenario } from "../types";

const PATH = "/api/audit?limit=50";
const AUDIT_ENTRIES = 250;

/**
 * GET /api/audit?limit=50 with an API key through the whole stack (credential lookup, CSRF,
 * Redis rate limit, tRPC guards, PostgreSQL), against a bare Express route serving the same body.
 */
export const auditList: TScenario = {
  name: "audit-list",
  title: `GET ${PATH} with an API key, ${AUDIT_ENTRIES} audit entries`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const owner = await seedOwnerWithKey(db.db, "business");
      await seedAudit(db.db, owner, AUDIT_ENTRIES);

      return await endpointVsBare(settings, {
        databaseUrl: db.url,
        path: PATH,
        key: owner.key,
        targets: { minRatio: 0.6, maxP99Ms: 8 },
        describe: (body) =>
          `response: ${(JSON.parse(body) as { entries?: unknown[] }).entries?.length ?? 0} entries`,
      });
    } finally {
      await db.drop();
    }
  },
};
