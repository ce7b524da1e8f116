import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyKeys } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { IDEMPOTENCY_TTL_MS, purgeExpiredIdempotencyKeys } from "./idempotency";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t.drop();
});

describe("purgeExpiredIdempotencyKeys", () => {
  it("deletes records older than twice the TTL and keeps the rest", async () => {
    const now = new Date("2026-06-01T00:00:00Z");
    const at = (ageMs: number) => new Date(now.getTime() - ageMs);
    await t.db.insert(idempotencyKeys).values([
      { scope: "org:a", key: "fresh", requestHash: "h", createdAt: at(60_000) },
      {
        scope: "org:a",
        key: "expired-but-recent",
        requestHash: "h",
        createdAt: at(IDEMPOTENCY_TTL_MS + 60_000),
      },
      { scope: "org:a", key: "old", requestHash: "h", createdAt: at(2 * IDEMPOTENCY_TTL_MS + 60_000) },
    ]);
    expect(await purgeExpiredIdempotencyKeys(t.db, now)).toBe(1);
    const left = await t.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys);
    expect(left.map((r) => r.key).sort()).toEqual(["expired-but-recent", "fresh"]);
  });
});
