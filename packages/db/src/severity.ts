// The one severity vocabulary: the database's enum, the engine's findings, the API's schemas,
// events and tickets all use these.

export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW"] as const;
export type TSeverity = (typeof SEVERITIES)[number];

/** Higher is worse; also findings.severity_rank, so "most severe first" is an index scan. */
export const SEVERITY_RANK: Record<TSeverity, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 };

export function maxSeverity(a: TSeverity, b: TSeverity): TSeverity {
  return SEVERITY_RANK[a] >= SEVERITY_RANK[b] ? a : b;
}

/** One level less severe, never below LOW: what a trusted destination earns. */
export function lowerSeverity(severity: TSeverity): TSeverity {
  return severity === "CRITICAL" ? "HIGH" : severity === "HIGH" ? "MEDIUM" : "LOW";
}

/** The most severe of `values`; LOW when there are none. */
export function mostSevere(values: Iterable<TSeverity>): TSeverity {
  let best: TSeverity = "LOW";
  for (const v of values) best = maxSeverity(best, v);
  return best;
}
