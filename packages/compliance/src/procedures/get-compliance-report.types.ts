import { ZDownload, type TMeta } from "@posture/platform";
import { z } from "zod";

export const getPostureReportMeta = {
  openapi: {
    method: "GET",
    path: "/reports/compliance",
    tags: ["reports"],
    summary: "Security posture report (PDF)",
    description:
      "Download (application/pdf attachment): score and grade, the trend over the period, the breakdown by category, top findings and improvements, and a summary of the five frameworks. White-labelled (logo, accent colour, partner name) when the organization is managed by a partner on a plan with whiteLabel. 5 per hour per organization.",
    protect: true,
  },
  download: { contentTypes: ["application/pdf"] },
} satisfies TMeta;

export const ZGetPostureReportInput = z.strictObject({
  period: z
    .number()
    .pipe(z.union([z.literal(30), z.literal(60), z.literal(90)]))
    .default(30)
    .describe("Days: 30 (default), 60 or 90"),
});

export const ZGetPostureReportOutput = ZDownload;
