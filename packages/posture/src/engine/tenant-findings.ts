import type { TCheckResult } from "@posture/benchmarks";
import { fingerprintOf } from "./finding";
import type { TDetectedFinding } from "./types";

export const TENANT_CONFIGURATION = "tenant_configuration" as const;

/**
 * One finding per failing tenant check: the rule id and the resource are the check's id, so the
 * finding is the same on every scan and resolves when the setting is fixed. Passing and
 * unavailable checks produce none (an unavailable one is a coverage gap, not a failure).
 */
export function tenantCheckFindings(results: readonly TCheckResult[]): TDetectedFinding[] {
  return results
    .filter((r) => r.status === "fail")
    .map(({ check, observed, reason }) => ({
      fingerprint: fingerprintOf(check.id, check.id),
      ruleId: check.id,
      category: TENANT_CONFIGURATION,
      severity: check.severity,
      title: `Not met: ${check.title} (${check.benchmark.name} ${check.benchmark.id})`,
      resourceId: check.id,
      resourceName: check.title,
      resourceType: "tenant_setting",
      details: {
        benchmark: check.benchmark,
        settings: observed,
        expected: check.expected,
        fix: check.fix,
        ...(reason === undefined ? {} : { reason }),
      },
    }));
}
