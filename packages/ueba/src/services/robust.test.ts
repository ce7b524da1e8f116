import { describe, expect, it } from "vitest";
import { deviation, mad, median, robust } from "./robust";
import { isoWeekLabel, recentWeeks, weekKey } from "./weeks";

describe("robust statistics", () => {
  it("takes the median of odd and even histories", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });

  it("is not dragged by one outlier where mean and standard deviation are", () => {
    const history = [10, 11, 9, 10, 12, 10, 9, 300];
    expect(median(history)).toBe(10);
    expect(mad(history)).toBe(1);
    const r = robust(history, 1);
    // 1.4826 × MAD, above the floor and a fifth of the median
    expect(r.scale).toBeCloseTo(2, 5);
    expect(deviation(40, r)).toBeCloseTo(15, 5);
  });

  it("floors the scale for flat histories", () => {
    expect(robust([0, 0, 0, 0], 1)).toEqual({ median: 0, scale: 1 });
    expect(robust([50, 50, 50], 1).scale).toBe(10);
  });
});

describe("ISO weeks", () => {
  it("names weeks by their Monday and ISO label, across year ends", () => {
    expect(weekKey(new Date("2026-11-22T23:59:59Z"))).toBe("2026-11-16");
    expect(isoWeekLabel(new Date("2026-11-22T12:00:00Z"))).toBe("2026-W47");
    expect(isoWeekLabel(new Date("2021-01-03T12:00:00Z"))).toBe("2020-W53");
    expect(isoWeekLabel(new Date("2024-12-30T00:00:00Z"))).toBe("2025-W01");
    expect(recentWeeks(new Date("2026-11-22T00:00:00Z"), 3)).toEqual([
      "2026-11-02",
      "2026-11-09",
      "2026-11-16",
    ]);
  });
});
