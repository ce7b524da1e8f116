import { ZDownload, type TMeta } from "@posture/platform";
import { z } from "zod";

export const getPortfolioPdfMeta = {
  openapi: {
    method: "GET",
    path: "/partner/reports/portfolio/pdf",
    tags: ["partner"],
    summary: "Portfolio report of the last week or month (PDF), for every client or one group",
    description:
      "Download (application/pdf attachment) of the portfolio report for the last complete week (Monday to Sunday, UTC) or month, built now with the scheduled report's figures and layout, and not stored. With `groupId`, only that group's clients, its name on the cover; 404 for an unknown group or another partner's.",
    protect: true,
  },
  errors: ["not_found"],
  download: { contentTypes: ["application/pdf"] },
} satisfies TMeta;

export const ZGetPortfolioPdfInput = z.strictObject({
  period: z.enum(["WEEKLY", "MONTHLY"]).default("WEEKLY"),
  groupId: z.string().min(1).max(64).optional(),
});
export const ZGetPortfolioPdfOutput = ZDownload;
