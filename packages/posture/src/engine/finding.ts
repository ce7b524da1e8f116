import { hash } from "node:crypto";
import { RULE_CATEGORY, type TRuleId } from "./rule-ids";
import type { TDetectedFinding } from "./types";

export function fingerprintOf(ruleId: string, resourceId: string): string {
  return hash("sha256", `${ruleId}:${resourceId}`, "hex");
}

export function makeFinding(
  input: Omit<TDetectedFinding, "fingerprint" | "category" | "ruleId"> & { ruleId: TRuleId },
): TDetectedFinding {
  return {
    fingerprint: fingerprintOf(input.ruleId, input.resourceId),
    category: RULE_CATEGORY[input.ruleId],
    ...input,
  };
}
