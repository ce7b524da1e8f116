import { ZDownload, type TMeta } from "@posture/platform";
import { z } from "zod";

export const getReportMeta = {
  openapi: {
    method: "GET",
    path: "/partner/reports/{id}",
    tags: ["partner"],
    summary: "Download a scheduled portfolio report (PDF)",
    description:
      "Download (application/pdf attachment) of one scheduled portfolio report; 404 for another partner's report.",
    protect: true,
  },
  download: { contentTypes: ["application/pdf"] },
} satisfies TMeta;

export const ZGetReportInput = z.strictObject({ id: z.string().min(1).max(64) });
export const ZGetReportOutput = ZDownload;
