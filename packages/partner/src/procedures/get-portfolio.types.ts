import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const getPortfolioMeta = {
  openapi: {
    method: "GET",
    path: "/partner/reports/portfolio",
    tags: ["partner"],
    summary: "Portfolio of managed organizations",
    description:
      "Every organization the partner manages with its latest posture score (null before its first scan) and open critical findings; totals: clients, open critical, average score of the scanned clients.",
    protect: true,
  },
} satisfies TMeta;

export const ZGetPortfolioInput = z.strictObject({});
export const ZGetPortfolioOutput = z.object({
  totals: z.object({
    clients: z.number().int().nonnegative(),
    openCritical: z.number().int().nonnegative(),
    avgScore: z.number().int().min(0).max(100).nullable(),
  }),
  clients: z.array(
    z.object({
      orgId: z.string(),
      name: z.string(),
      postureScore: z.number().int().min(0).max(100).nullable(),
      openCritical: z.number().int().nonnegative(),
    }),
  ),
});
