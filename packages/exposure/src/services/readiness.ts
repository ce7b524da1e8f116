import type { TSeverity } from "@posture/db";

// The AI readiness score (docs/exposure.md): how much of what everyone inside can open is
// overshared, as the open internal-exposure findings weigh it against the organization's files.

/** What one open internal-exposure finding weighs, by severity. */
export const READINESS_POINTS: Record<TSeverity, number> = { CRITICAL: 8, HIGH: 4, MEDIUM: 2, LOW: 1 };
/** How steeply points lower the score: at 1 point per 5 files the score is 50. */
export const READINESS_STEEPNESS = 5;

export type TSeverityCounts = Record<TSeverity, number>;

export const pointsOf = (counts: TSeverityCounts): number =>
  (Object.keys(READINESS_POINTS) as TSeverity[]).reduce((s, k) => s + READINESS_POINTS[k] * counts[k], 0);

/**
 * 0..100: `round(100 · files / (files + 5 · points))`, 100 with no open internal-exposure
 * finding. Monotone: resolving any finding never lowers it; a quick win's predicted delta is this
 * function on the counts without the group minus this function now, so applying it moves the
 * score by exactly that.
 */
export function readinessScore(files: number, points: number): number {
  if (points <= 0) return 100;
  return Math.round((100 * files) / (files + READINESS_STEEPNESS * points));
}

const GRADES: ReadonlyArray<readonly [number, string]> = [
  [90, "A"],
  [80, "B"],
  [70, "C"],
  [60, "D"],
];

/** The posture score's grade bands (A 90+, B 80+, C 70+, D 60+, else F). */
export const readinessGrade = (score: number): string => GRADES.find(([min]) => score >= min)?.[1] ?? "F";
