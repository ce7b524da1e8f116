import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const getBaselineMeta = {
  openapi: {
    method: "GET",
    path: "/behavior/baseline/{userId}",
    tags: ["behavior"],
    summary: "A principal's learned weekly baseline",
    description:
      "userId is the principal of the anomalies (the user's e-mail, URL-encoded). baseline holds weekly medians over up to 12 weeks (periodsLearned); spread the robust scale (1.4826 × MAD, floored). source is `self`, or `organization` while the principal has fewer than 4 weeks of history. 404 for an unknown principal or another organization's.",
  },
} satisfies TMeta;

export const ZGetBaselineInput = z.strictObject({ userId: z.string().min(1).max(320) });

const ZCounts = z.object({
  externalShareCount: z.number().nonnegative(),
  resourceAccessCount: z.number().nonnegative(),
  oauthGrantCount: z.number().nonnegative(),
  deletionCount: z
    .number()
    .nonnegative()
    .describe("files moved to the bin or deleted (the mass_deletion metric)"),
});

export const ZGetBaselineOutput = z.object({
  userId: z.string(),
  periodsLearned: z.number().int().nonnegative(),
  source: z.enum(["self", "organization"]),
  baseline: ZCounts,
  spread: ZCounts,
  riskScore: z.number().int().nonnegative(),
  computedAt: z.string(),
});
