import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createOrgSlots } from "./org-slots";
import { dropPrefix, TEST_REDIS_URL, uniquePrefix } from "./testing/redis";

const prefix = uniquePrefix("org-slots");
const clients: Redis[] = [];
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await dropPrefix(prefix);
});

function slots(cap: number, ttlMs: number) {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  clients.push(redis);
  return {
    redis,
    slots: createOrgSlots(redis, { key: (org) => `${prefix}:deliveries:org-slots:${org}`, cap, ttlMs }),
  };
}

describe("per-organization slots", () => {
  it("caps an organization, not others, and frees a slot on release", async () => {
    const { slots: s } = slots(2, 5_000);
    const a1 = await s.acquire("org-a", "job-1");
    const a2 = await s.acquire("org-a", "job-2");
    expect(a1).not.toBe(false);
    expect(a2).not.toBe(false);
    expect(await s.acquire("org-a", "job-3")).toBe(false);
    expect(await s.acquire("org-b", "job-4")).not.toBe(false);
    // A job taken over after a crash, or retried, holds its slot under its same id: not twice.
    const again = await s.acquire("org-a", "job-1");
    expect(again).not.toBe(false);
    if (a1) await a1.release();
    const a3 = await s.acquire("org-a", "job-3");
    expect(a3).not.toBe(false);
    for (const slot of [a2, a3, again]) if (slot) await slot.release();
  });

  it("frees the slots of a worker that died holding them, once they lapse", async () => {
    const dying = slots(1, 400);
    expect(await dying.slots.acquire("org-c", "job-1")).not.toBe(false);
    // The worker's process dies: its connection is gone and nothing renews or releases the slot.
    dying.redis.disconnect();
    const survivor = slots(1, 400);
    expect(await survivor.slots.acquire("org-c", "job-2")).toBe(false);
    await sleep(500);
    const taken = await survivor.slots.acquire("org-c", "job-2");
    expect(taken).not.toBe(false);
    if (taken) await taken.release();
  });

  it("keeps a slot held past its ttl while its holder lives", async () => {
    const { slots: s } = slots(1, 300);
    const held = await s.acquire("org-d", "job-1");
    await sleep(700);
    expect(await s.acquire("org-d", "job-2")).toBe(false);
    if (held) await held.release();
    expect(await s.acquire("org-d", "job-2")).not.toBe(false);
  });
});
