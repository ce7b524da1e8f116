import { ZDownload, type TMeta } from "@posture/platform";
import { z } from "zod";

export const getGapReportMeta = {
  openapi: {
    method: "GET",
    path: "/compliance/gap-report",
    tags: ["compliance"],
    summary: "Cross-framework gap report (PDF)",
    description:
      "Download (application/pdf attachment): per framework the gaps and partial controls with the findings behind each, what to fix first, and the themes failing across frameworks.",
    protect: true,
  },
  download: { contentTypes: ["application/pdf"] },
} satisfies TMeta;

export const ZGetGapReportInput = z.strictObject({
  period: z.number().int().min(1).max(365).default(30).describe("Look-back window in days (default 30)"),
});

export const ZGetGapReportOutput = ZDownload;
