import type { TAnomalyType, TSeverity } from "@posture/db";
import { deviation, robust, type TRobust } from "./robust";

// The behaviour model, free of I/O: weekly series in, baselines, heatmap cells and anomaly
// candidates out. Thresholds and their reasons are in docs/decisions.md (Behaviour analytics).

export const RATE_METRICS = ["external_shares", "resource_accesses", "oauth_grants", "deletions"] as const;
export type TRateMetric = (typeof RATE_METRICS)[number];

/** Weeks of history a baseline learns from (Defender for Cloud Apps compares against about a month; we keep a quarter). */
export const LEARN_WEEKS = 12;
/** Below this many weeks of its own, a principal is compared with the organization's weeks. */
export const MIN_OWN_WEEKS = 4;
/** The current week and the one before are evaluated on every refresh (daily scans may straddle a Monday). */
export const DETECT_WEEKS = 2;

type TMetricRule = {
  type: Exclude<TAnomalyType, "dormant_reactivation">;
  /** Smallest scale: a flat history of zeros still needs several events to stand out. */
  scaleFloor: number;
  /** Robust deviations above the baseline before a week is anomalous. */
  minDeviation: number;
  /** And at least this many events in the week, however quiet the baseline. */
  minCount: number;
  /** Deviations at which severity reaches HIGH and CRITICAL. */
  high: number;
  critical: number;
};

export const RULES: Record<TRateMetric, TMetricRule> = {
  external_shares: {
    type: "sharing_spike",
    scaleFloor: 1,
    minDeviation: 6,
    minCount: 10,
    high: 12,
    critical: 40,
  },
  resource_accesses: {
    type: "bulk_access",
    scaleFloor: 3,
    minDeviation: 6,
    minCount: 75,
    high: 12,
    critical: 40,
  },
  oauth_grants: {
    type: "oauth_burst",
    scaleFloor: 0.5,
    minDeviation: 6,
    minCount: 4,
    high: 10,
    critical: 30,
  },
  // Files moved to the bin or deleted: ransomware, a leaver wiping their work, a sync gone wrong.
  deletions: {
    type: "mass_deletion",
    scaleFloor: 3,
    minDeviation: 6,
    minCount: 50,
    high: 12,
    critical: 40,
  },
};

export type TSeries = Record<TRateMetric, number[]>;

export type TBaselineStats = {
  periodsLearned: number;
  source: "self" | "organization";
  stats: Record<TRateMetric, TRobust>;
};

export type TCandidate = {
  type: TMetricRule["type"];
  metric: TRateMetric;
  weekIndex: number;
  observed: number;
  expected: number;
  deviation: number;
  severity: TSeverity;
  confidence: number;
  periodsLearned: number;
  source: "self" | "organization";
  /** The count in the week at which the threshold was crossed. */
  threshold: number;
};

/** The organization's pooled weekly counts per metric: the fallback baseline for newcomers. */
export function organizationStats(pooled: Record<TRateMetric, number[]>): Record<TRateMetric, TRobust> {
  return statsOf((m) => pooled[m]);
}

function statsOf(values: (m: TRateMetric) => number[]): Record<TRateMetric, TRobust> {
  return Object.fromEntries(RATE_METRICS.map((m) => [m, robust(values(m), RULES[m].scaleFloor)])) as Record<
    TRateMetric,
    TRobust
  >;
}

/** A series of zeros per rate metric. */
export function emptySeries(weeks: number): TSeries {
  return Object.fromEntries(RATE_METRICS.map((m) => [m, new Array<number>(weeks).fill(0)])) as TSeries;
}

/** The baseline a week is judged against: up to LEARN_WEEKS of the principal's weeks before it. */
export function baselineAt(
  series: TSeries,
  firstWeek: number,
  weekIndex: number,
  org: Record<TRateMetric, TRobust>,
): TBaselineStats {
  const from = Math.max(firstWeek, weekIndex - LEARN_WEEKS);
  const periodsLearned = Math.max(0, weekIndex - from);
  if (periodsLearned < MIN_OWN_WEEKS) return { periodsLearned, source: "organization", stats: org };
  return { periodsLearned, source: "self", stats: statsOf((m) => series[m].slice(from, weekIndex)) };
}

/**
 * Confidence in [0, 1]: grows with the deviation (1 − e^(−z/6): 0.63 at the threshold, 0.99 at
 * 30σ) and with the history behind the baseline (an organization fallback caps it at 0.4).
 */
export function confidenceOf(z: number, periodsLearned: number, source: "self" | "organization"): number {
  const byDeviation = 1 - Math.exp(-Math.max(0, z) / 6);
  const byHistory = source === "self" ? 0.6 + 0.4 * Math.min(1, periodsLearned / LEARN_WEEKS) : 0.4;
  return Math.round(byDeviation * byHistory * 100) / 100;
}

function severityOf(rule: TMetricRule, z: number): TSeverity {
  if (z >= rule.critical) return "CRITICAL";
  if (z >= rule.high) return "HIGH";
  return "MEDIUM";
}

/** A week's rate anomalies for one principal (at most one per metric). */
export function rateCandidates(series: TSeries, weekIndex: number, baseline: TBaselineStats): TCandidate[] {
  const out: TCandidate[] = [];
  for (const metric of RATE_METRICS) {
    const rule = RULES[metric];
    const observed = series[metric][weekIndex] ?? 0;
    const stats = baseline.stats[metric];
    const z = deviation(observed, stats);
    if (z < rule.minDeviation || observed < rule.minCount) continue;
    out.push({
      type: rule.type,
      metric,
      weekIndex,
      observed,
      expected: Math.round(stats.median * 100) / 100,
      deviation: Math.round(z * 10) / 10,
      severity: severityOf(rule, z),
      confidence: confidenceOf(z, baseline.periodsLearned, baseline.source),
      periodsLearned: baseline.periodsLearned,
      source: baseline.source,
      threshold: Math.max(rule.minCount, Math.floor(stats.median + rule.minDeviation * stats.scale) + 1),
    });
  }
  return out;
}

/** A heatmap cell, 0–100: ten points per robust deviation beyond two, the worst metric of the week. */
export function riskCell(series: TSeries, weekIndex: number, baseline: TBaselineStats): number {
  let worst = 0;
  for (const metric of RATE_METRICS) {
    const z = deviation(series[metric][weekIndex] ?? 0, baseline.stats[metric]);
    worst = Math.max(worst, z - 2);
  }
  return Math.min(100, Math.round(worst * 10));
}

export const SEVERITY_POINTS: Record<TSeverity, number> = { CRITICAL: 100, HIGH: 75, MEDIUM: 50, LOW: 25 };

/** Dormant accounts: Cortex XDR flags a login after a month unused; 90 and 180 days weigh more. */
export const DORMANT_DAYS = 30;

export function dormantSeverity(gapDays: number, isAdmin: boolean): TSeverity {
  const base: TSeverity = gapDays >= 180 ? "HIGH" : gapDays >= 90 ? "HIGH" : "MEDIUM";
  if (isAdmin) return base === "HIGH" ? "CRITICAL" : "HIGH";
  return base;
}

/** Longer silences are surer signs; a gap seen in the principal's own history beats an account age. */
export function dormantConfidence(gapDays: number, fromHistory: boolean): number {
  const byGap = 1 - Math.exp(-gapDays / 45);
  return Math.round(byGap * (fromHistory ? 1 : 0.7) * 100) / 100;
}
