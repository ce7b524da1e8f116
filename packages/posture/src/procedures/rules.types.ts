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
  createdAt: ZTimestamp,
});

// Only ALERT_ONLY acts today: remediating at the source (revoking links) needs write scopes
// that connectors do not request.
const ZAction = z.literal("ALERT_ONLY");

export const ZCreateRuleInput = z.strictObject({
  name: z.string().trim().min(1).max(120),
  match: ZRuleMatch,
  enabled: z.boolean().optional(),
  action: ZAction.optional(),
});

export const ZUpdateRuleInput = z.strictObject({
  id: z.string().min(1).max(100),
  name: z.string().trim().min(1).max(120).optional(),
  match: ZRuleMatch.optional(),
  enabled: z.boolean().optional(),
  action: ZAction.optional(),
});

export const ZRuleIdInput = z.strictObject({ id: z.string().min(1).max(100) });
