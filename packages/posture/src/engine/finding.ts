import { createHash } from "node:crypto";
import { RULE_CATEGORY, type TRuleId } from "./rule-ids";
import type { TDetectedFinding, TResourceType, TSeverity } from "./types";

export function fingerprintOf(ruleId: string, resourceId: string): string {
  return createHash("sha256").update(`${ruleId}:${resourceId}`).digest("hex");
}

export function makeFinding(input: {
  ruleId: TRuleId;
  severity: TSeverity;
  title: string;
  resourceId: string;
  resourceName: string;
  resourceType: TResourceType;
  details: Record<string, unknown>;
}): TDetectedFinding {
  return {
    fingerprint: fingerprintOf(input.ruleId, input.resourceId),
    category: RULE_CATEGORY[input.ruleId],
    ...input,
  };
}
