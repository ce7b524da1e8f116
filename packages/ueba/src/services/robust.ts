// Robust statistics for small, bursty weekly counts: the median and the median absolute
// deviation resist the one wild week that would drag a mean and standard deviation after it.

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Median absolute deviation around the median. */
export function mad(values: readonly number[], center = median(values)): number {
  return median(values.map((v) => Math.abs(v - center)));
}

/** 1.4826 × MAD estimates the standard deviation of normally distributed data. */
export const MAD_TO_SIGMA = 1.4826;

export type TRobust = { median: number; scale: number };

/**
 * Median and scale of a history. The scale never falls below `floor` or a fifth of the median:
 * a principal who shared exactly twice every week (MAD 0) must not be flagged for sharing three times.
 */
export function robust(values: readonly number[], floor: number): TRobust {
  const m = median(values);
  return { median: m, scale: Math.max(MAD_TO_SIGMA * mad(values, m), floor, 0.2 * m) };
}

/** How many robust standard deviations `x` lies above the baseline (negative below). */
export function deviation(x: number, r: TRobust): number {
  return (x - r.median) / r.scale;
}
