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

export const ZGetPortfolioInput = z.object({});
export const ZGetPortfolioOutput = z.object({
  totals: z.object({
    clients: z.number().int(),
    openCritical: z.number().int(),
    avgScore: z.number().int().nullable(),
  }),
  clients: z.array(
    z.object({
      orgId: z.string(),
      name: z.string(),
      postureScore: z.number().int().nullable(),
      openCritical: z.number().int(),
    }),
  ),
});
