import { createTestDb } from "@posture/db/testing";
import { endpointVsBare } from "../lib/endpoint-vs-bare";
import { seedOwnerWithKey } from "../lib/seed";
import type { TScenario } from "../types";

const PATH = "/api/usage";

/** GET /api/usage: the smallest authenticated read, so the request path's own cost dominates. */
export const usage: TScenario = {
  name: "usage",
  title: `GET ${PATH} with an API key`,
  run: async (settings) => {
    const db = await createTestDb();
    try {
      const owner = await seedOwnerWithKey(db.db, "business");
      return await endpointVsBare(settings, {
        databaseUrl: db.url,
        path: PATH,
        key: owner.key,
        targets: { minRatio: 0.6, maxP99Ms: 8 },
        describe: (body) => `response: usage of plan ${(JSON.parse(body) as { plan: string }).plan}`,
      });
    } finally {
      await db.drop();
    }
  },
};
