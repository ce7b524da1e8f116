import { maxSeverity as higher, SEVERITY_RANK, type TSeverity } from "../engine";

export { SEVERITY_RANK };

export function maxSeverity(values: Iterable<TSeverity>): TSeverity {
  let best: TSeverity = "LOW";
  for (const v of values) best = higher(best, v);
  return best;
}
