import { describe, expect, it } from "vitest";
import { lastCompletePeriod } from "./scheduled-reports";

describe("lastCompletePeriod", () => {
  it("WEEKLY is the previous Monday-to-Monday week in UTC", () => {
    // Sunday 2026-11-22 → the week of Monday 2026-11-09 … Monday 2026-11-16.
    const p = lastCompletePeriod("WEEKLY", new Date("2026-11-22T15:00:00Z"));
    expect([p.start.toISOString(), p.end.toISOString()]).toEqual([
      "2026-11-09T00:00:00.000Z",
      "2026-11-16T00:00:00.000Z",
    ]);
    // On a Monday the week that just ended is complete.
    const m = lastCompletePeriod("WEEKLY", new Date("2026-11-23T00:30:00Z"));
    expect(m.start.toISOString()).toBe("2026-11-16T00:00:00.000Z");
  });

  it("MONTHLY is the previous calendar month, across a year boundary", () => {
    const p = lastCompletePeriod("MONTHLY", new Date("2027-01-05T10:00:00Z"));
    expect([p.start.toISOString(), p.end.toISOString()]).toEqual([
      "2026-12-01T00:00:00.000Z",
      "2027-01-01T00:00:00.000Z",
    ]);
  });
});
