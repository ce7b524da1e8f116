import { ANOMALY_TYPES, SEVERITIES } from "@posture/db";
import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const listAnomaliesMeta = {
  openapi: {
    method: "GET",
    path: "/behavior/anomalies",
    tags: ["behavior"],
    summary: "Behaviour anomalies, newest first",
    description:
      "One anomaly per principal, type and ISO week (`window`), updated in place when recomputed after each scan. `confidence` is in [0, 1] and grows with the deviation from the baseline and with the weeks of history behind it. Filters: type, severity, since (ISO timestamp); limit default 50, max 500.",
  },
} satisfies TMeta;

export const ZListAnomaliesInput = z.strictObject({
  type: z.enum(ANOMALY_TYPES).optional(),
  severity: z.enum(SEVERITIES).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  limit: z.number().int().min(1).max(500).default(50),
});

export const ZAnomaly = z.object({
  id: z.string(),
  principal: z.string(),
  type: z.enum(ANOMALY_TYPES),
  severity: z.enum(SEVERITIES),
  confidence: z.number().min(0).max(1),
  at: z.string(),
  window: z.string().describe("ISO week, e.g. 2026-W47"),
  observed: z
    .number()
    .int()
    .nonnegative()
    .describe("events in the window (days of silence for dormant_reactivation)"),
  expected: z.number().nonnegative().describe("the baseline's weekly median"),
  periodsLearned: z.number().int().nonnegative(),
});

export const ZListAnomaliesOutput = z.object({ anomalies: z.array(ZAnomaly) });
