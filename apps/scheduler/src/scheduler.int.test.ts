import { queryRows } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createBullQueue, type TJobRegistry } from "@posture/jobs";
import { dropPrefix, TEST_REDIS_URL, uniquePrefix } from "@posture/jobs/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScheduler } from "./scheduler";

const prefix = uniquePrefix("scheduler");
let testDb: TestDb;

beforeAll(async () => {
  testDb = await createTestDb();
  await testDb.db.execute(sql`CREATE TABLE handled (job_id text PRIMARY KEY, org_id text NOT NULL)`);
});
afterAll(async () => {
  await testDb.drop();
  await dropPrefix(prefix);
});

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

describe("startScheduler", () => {
  it("runs queued jobs through the registry's handlers until closed", async () => {
    const registry: TJobRegistry = {
      "record-org": {
        attempts: 2,
        backoffMs: 50,
        handler: async (data, { jobId }) => {
          const { orgId } = data as { orgId: string };
          await testDb.db.execute(
            sql`INSERT INTO handled (job_id, org_id) VALUES (${jobId}, ${orgId}) ON CONFLICT DO NOTHING`,
          );
          return { orgId };
        },
      },
    };
    const jobs = createBullQueue({ redisUrl: TEST_REDIS_URL, prefix, registry });
    const scheduler = startScheduler({
      redisUrl: TEST_REDIS_URL,
      prefix,
      registry,
      log: silent,
    });
    try {
      await expect(
        jobs.runAndWait("record-org", { orgId: "org-1" }, { jobId: "record:org-1", timeoutMs: 10_000 }),
      ).resolves.toEqual({ orgId: "org-1" });
      const rows = await queryRows<{ job_id: string; org_id: string }>(testDb.db, sql`SELECT * FROM handled`);
      expect(rows).toEqual([{ job_id: "record:org-1", org_id: "org-1" }]);
    } finally {
      await scheduler.close();
      await jobs.close();
    }
  });
});
