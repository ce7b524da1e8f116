import { describe, expect, it } from "vitest";
import { isoAt } from "./shape";

describe("isoAt", () => {
  it("formats exactly as Date#toISOString across days, hours and milliseconds", () => {
    const start = Date.parse("2024-02-27T22:59:58.997Z");
    // A prime step walks every field through its rollovers: midnight, leap day, month and year ends.
    for (let ms = start; ms < start + 400 * 86_400_000; ms += 7_777_777) {
      expect(isoAt(ms)).toBe(new Date(ms).toISOString());
    }
    for (const ms of [0, 86_399_999, Date.parse("2026-12-31T23:59:59.999Z"), 1_795_400_000_123.7]) {
      expect(isoAt(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
