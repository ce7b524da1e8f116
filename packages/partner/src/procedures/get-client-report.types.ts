import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { ZClientScore } from "./get-portfolio.types";

export const getClientReportMeta = {
  openapi: {
    method: "GET",
    path: "/partner/reports/client/{orgId}",
    tags: ["partner"],
    summary: "Report of one managed organization",
    description:
      "Latest score, open findings per severity, the last 30 days' trend (one point per day with a completed scan: that day's last score, `at` a date) and the health of its sources. 404 for an organization the partner does not manage.",
    protect: true,
  },
} satisfies TMeta;

export const ZGetClientReportInput = z.strictObject({ orgId: z.string().min(1).max(64) });
const ZCount = z.number().int();
export const ZGetClientReportOutput = z.object({
  orgId: z.string(),
  name: z.string(),
  ...ZClientScore.shape,
  findings: z.object({ CRITICAL: ZCount, HIGH: ZCount, MEDIUM: ZCount, LOW: ZCount }),
  trend: z.array(z.object({ score: z.number().int().min(0).max(100), at: z.iso.date() })),
  sources: z.array(z.object({ connectorId: z.string(), name: z.string(), healthStatus: z.string() })),
});
