import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { HORIZON_WEEKS } from "../services/refresh";

export const getHeatmapMeta = {
  openapi: {
    method: "GET",
    path: "/behavior/heatmap",
    tags: ["behavior"],
    summary: "Risk heatmap: users × ISO weeks, riskiest users first",
    description: `cells[i][j] is user i's risk in period j (0–100): ten points per robust standard deviation above the user's baseline beyond two, or the severity of an anomaly that week (CRITICAL 100, HIGH 75, MEDIUM 50, LOW 25). Periods are oldest first. weeks default 12, max ${HORIZON_WEEKS}; limit (users) default 50, max 500.`,
  },
} satisfies TMeta;

export const ZGetHeatmapInput = z.strictObject({
  weeks: z.number().int().min(1).max(HORIZON_WEEKS).default(12),
  limit: z.number().int().min(1).max(500).default(50),
});

export const ZGetHeatmapOutput = z.object({
  users: z.array(z.string()),
  periods: z.array(z.string().regex(/^\d{4}-W\d{2}$/)),
  cells: z.array(z.array(z.number().int())),
});
