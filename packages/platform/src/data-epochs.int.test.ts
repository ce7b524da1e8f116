import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { ALL_ORGANIZATIONS, asUnnamedWrite, dataEpochKeys, dataWrites } from "./data-epochs";
import { recordAudit } from "./audit";
import { RateLimits } from "./rate-limit";

// The data epochs in Redis (rate-limit.ts's scripts), read the way the access gate reads them:
// in the rate limiter's one round trip.
const redis = new Redis(process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 });
let testDb: TestDb | undefined;
afterAll(async () => {
  redis.disconnect();
  await testDb?.drop();
});

const fresh = () => {
  const prefix = `rl-data-${randomBytes(6).toString("hex")}`;
  return { prefix, limits: new RateLimits(redis, prefix) };
};
const read = async (limits: RateLimits, orgId: string) =>
  (
    await limits.hit("authenticated", `client-${randomBytes(4).toString("hex")}`, {
      epoch: { orgId, data: true },
    })
  ).dataEpoch;

describe("data epochs in Redis", () => {
  it("are read with the rate limit, hidden while a write runs, and moved by its start and end", async () => {
    const { limits } = fresh();
    const before = await read(limits, "org_a");
    expect(before).toMatch(/^\d+:\d+$/);
    expect(await read(limits, "org_a")).toBe(before);
    await limits.begin(["org_a"], "w1", Date.now() + 30_000);
    expect(await read(limits, "org_a")).toBeNull();
    expect(await read(limits, "org_b")).not.toBeNull();
    await limits.renew(["org_a"], "w1", Date.now() + 30_000);
    expect(await read(limits, "org_a")).toBeNull();
    await limits.end(["org_a"], "w1");
    const after = await read(limits, "org_a");
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
  });

  it("drop a dead writer's mark once it expires, and a sweep's mark hides every organization", async () => {
    const { limits } = fresh();
    await limits.begin(["org_a"], "dead", Date.now() + 150);
    expect(await read(limits, "org_a")).toBeNull();
    await new Promise((r) => setTimeout(r, 200));
    expect(await read(limits, "org_a")).not.toBeNull();
    await limits.begin([ALL_ORGANIZATIONS], "sweep", Date.now() + 30_000);
    expect(await read(limits, "org_z")).toBeNull();
    await limits.end([ALL_ORGANIZATIONS], "sweep");
    expect(await read(limits, "org_z")).not.toBeNull();
  });

  it("never hand an old value out again after Redis loses them (a restart with no data)", async () => {
    const { prefix, limits } = fresh();
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const e = await read(limits, "org_a");
      if (!e) throw new Error("no epoch");
      seen.add(e);
      await limits.begin(["org_a"], `w${i}`, Date.now() + 30_000);
      await limits.end(["org_a"], `w${i}`);
    }
    const last = await read(limits, "org_a");
    await redis.del(dataEpochKeys(prefix, "org_a").epoch, dataEpochKeys(prefix, ALL_ORGANIZATIONS).epoch);
    await new Promise((r) => setTimeout(r, 2));
    const reseeded = await read(limits, "org_a");
    expect(reseeded).not.toBeNull();
    expect(seen.has(reseeded ?? "")).toBe(false);
    expect(reseeded).not.toBe(last);
    expect(Number(reseeded?.split(":")[0])).toBeGreaterThan(Number(last?.split(":")[0]));
  });

  it("list an unnamed write as every organization's, then move only the epochs its audit rows name", async () => {
    const { limits } = fresh();
    testDb ??= await createTestDb();
    const db = testDb.db;
    const [written, untouched] = ["org_written_" + randomBytes(3).toString("hex"), "org_untouched"];
    const writes = dataWrites({ db, store: limits });
    const before = { written: await read(limits, written), untouched: await read(limits, untouched) };
    let during: Array<string | null> = [];
    await asUnnamedWrite(writes, async () => {
      during = [await read(limits, written), await read(limits, untouched)];
      // The audit row names its organization: what the write is marked as once it ends.
      await db.transaction(async (tx) => {
        await tx.execute(
          sql`insert into organizations (id, name, plan) values (${written}, 'Unnamed write', 'business')`,
        );
        await recordAudit(tx, {
          orgId: written,
          action: "SANDBOX_CREATED",
          target: written,
          userEmail: "system",
        });
      });
    });
    expect(during).toEqual([null, null]);
    expect(await read(limits, untouched)).toBe(before.untouched);
    const after = await read(limits, written);
    expect(after).not.toBeNull();
    expect(after).not.toBe(before.written);
  });
});
