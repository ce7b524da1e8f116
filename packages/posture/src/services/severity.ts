import type { TSeverity } from "@posture/db";

export const SEVERITY_RANK: Record<TSeverity, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 };

export function maxSeverity(values: Iterable<TSeverity>): TSeverity {
  let best: TSeverity = "LOW";
  for (const v of values) if (SEVERITY_RANK[v] > SEVERITY_RANK[best]) best = v;
  return best;
}
