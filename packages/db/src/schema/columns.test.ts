import { describe, expect, it } from "vitest";
import { newId } from "./columns";

describe("newId", () => {
  it("is the prefix and 32 base32 characters, each position spanning the whole alphabet", () => {
    const ids = Array.from({ length: 20_000 }, () => newId("fnd"));
    expect(ids.every((id) => /^fnd_[a-z2-7]{32}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // Every 8-character group's first character carries the top bits of its 5 bytes.
    for (const position of [0, 8, 16, 24, 31]) {
      expect(new Set(ids.map((id) => id[4 + position])).size).toBe(32);
    }
  });
});
