import { PREVENTION_ACTIONS } from "@posture/db";
import { ZTimestamp } from "@posture/platform";
import { z } from "zod";
import { ZFindingCategory, ZSeverity } from "./shared.types";

export const ZRuleMatch = z
  .strictObject({
    categories: z.array(ZFindingCategory).max(10).optional(),
    ruleIds: z.array(z.string().min(1).max(100)).max(50).optional(),
    minSeverity: ZSeverity.optional(),
  })
  .refine((m) => m.categories?.length || m.ruleIds?.length || m.minSeverity, {
    message: "match at least one of categories, ruleIds or minSeverity",
  });

export const ZRule = z.object({
  id: z.string(),
  name: z.string(),
  match: z.object({
    categories: z.array(z.string()).optional(),
    ruleIds: z.array(z.string()).optional(),
    minSeverity: ZSeverity.optional(),
  }),
  enabled: z.boolean(),
  action: z.string().optional(),
  /** Prevention rules: an acting rule in dry run records its plan and changes nothing. */
  dryRun: z.boolean().optional(),
  /**
   * Prevention rules, four eyes: whether the rule acts, and whether a different person than the one
   * who made it act (`setBy`) approved it (with four eyes on, only then are its plans applied).
   */
  approval: z
    .object({
      acting: z.boolean(),
      approved: z.boolean(),
      setBy: z.string().nullable(),
      approvedBy: z.string().nullable(),
      approvedAt: ZTimestamp.nullable(),
    })
    .optional(),
  createdAt: ZTimestamp,
});

// ALERT_ONLY only announces; the others act at the source through a remediation the scan plans
// (and applies under the organization's per-scan change cap; see docs/decisions.md).
const ZAction = z.enum(PREVENTION_ACTIONS);

export const ZCreateRuleInput = z.strictObject({
  name: z.string().trim().min(1).max(120),
  match: ZRuleMatch,
  enabled: z.boolean().optional(),
  action: ZAction.optional(),
  dryRun: z.boolean().optional(),
});

export const ZUpdateRuleInput = z.strictObject({
  id: z.string().min(1).max(100),
  name: z.string().trim().min(1).max(120).optional(),
  match: ZRuleMatch.optional(),
  enabled: z.boolean().optional(),
  action: ZAction.optional(),
  dryRun: z.boolean().optional(),
});

export const ZRuleIdInput = z.strictObject({ id: z.string().min(1).max(100) });
