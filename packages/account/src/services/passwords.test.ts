import { describe, expect, it } from "vitest";
import { AppError } from "@posture/platform";
import { createHashSlots } from "./hash-slots";
import { checkPassword, dummyPasswordHash, hashPassword, legacyScryptHash } from "./passwords";

describe("password hashing", () => {
  it("hashes with argon2id at m=19 MiB, t=2, p=1 and a fresh salt each time", async () => {
    const a = await hashPassword("correct horse");
    const b = await hashPassword("correct horse");
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await checkPassword("correct horse", a)).toEqual({ valid: true, needsRehash: false });
    expect(await checkPassword("wrong horse", a)).toEqual({ valid: false, needsRehash: false });
  });

  it("verifies the earlier scrypt format and asks for a rehash", async () => {
    const legacy = await legacyScryptHash("old secret");
    expect(legacy).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await checkPassword("old secret", legacy)).toEqual({ valid: true, needsRehash: true });
    expect(await checkPassword("other", legacy)).toEqual({ valid: false, needsRehash: true });
  });

  it("refuses malformed or hostile stored values without throwing", async () => {
    for (const stored of [
      "",
      "plain",
      "$argon2id$garbage",
      "scrypt$1099511627776$8$1$AAAA$AAAA",
      "scrypt$$$$$",
    ]) {
      expect((await checkPassword("x", stored)).valid).toBe(false);
    }
  });

  it("keeps a dummy hash of the current parameters for unknown accounts", async () => {
    const dummy = await dummyPasswordHash();
    expect(dummy).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await dummyPasswordHash()).toBe(dummy);
  });
});

describe("hash slots", () => {
  it("runs at most `slots` at once, queues up to `maxWaiting`, and refuses the rest with 429", async () => {
    const withSlot = createHashSlots(2, 3);
    let running = 0;
    let peak = 0;
    const gates: Array<() => void> = [];
    const job = () =>
      withSlot(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        return "done";
      });
    const accepted = Array.from({ length: 5 }, job);
    const refused = job();
    await expect(refused).rejects.toBeInstanceOf(AppError);
    await expect(refused).rejects.toMatchObject({ code: "rate_limited" });
    // Let every job through, one gate at a time, as slots free up.
    while (gates.length > 0 || running > 0) {
      await new Promise((r) => setTimeout(r, 1));
      gates.shift()?.();
    }
    expect(await Promise.all(accepted)).toEqual(["done", "done", "done", "done", "done"]);
    expect(peak).toBe(2);
    // Slots are all free again.
    expect(await withSlot(async () => "again")).toBe("again");
  });
});
