import { describe, expect, it } from "vitest";
import { defaultBackoff, MAX_ATTEMPTS, RETRY_SCHEDULE_MS, scheduleBackoff } from "./backoff";

describe("back-off", () => {
  it("spans about three days over the attempts", () => {
    const total = RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeGreaterThan(66);
    expect(total / 3_600_000).toBeLessThan(80);
    expect(MAX_ATTEMPTS).toBe(RETRY_SCHEDULE_MS.length + 1);
  });

  it("grows, with at most ±20% jitter, and gives up after the last attempt", () => {
    for (let failed = 1; failed < MAX_ATTEMPTS; failed++) {
      const base = RETRY_SCHEDULE_MS[failed - 1] ?? 0;
      const wait = defaultBackoff(failed);
      expect(wait).not.toBeNull();
      expect(wait).toBeGreaterThanOrEqual(base * 0.8);
      expect(wait).toBeLessThanOrEqual(base * 1.2);
    }
    expect(defaultBackoff(MAX_ATTEMPTS)).toBeNull();
  });

  it("applies the jitter from the random source", () => {
    expect(scheduleBackoff([1000], () => 0)(1)).toBe(800);
    expect(scheduleBackoff([1000], () => 1)(1)).toBe(1200);
    expect(scheduleBackoff([1000], () => 0.5)(1)).toBe(1000);
    expect(scheduleBackoff([1000], () => 0.5)(2)).toBeNull();
  });
});
