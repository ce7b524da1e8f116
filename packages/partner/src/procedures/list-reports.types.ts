import { offsetInput, ZOffsetMeta, type TMeta } from "@posture/platform";
import { z } from "zod";

export const listReportsMeta = {
  openapi: {
    method: "GET",
    path: "/partner/reports",
    tags: ["partner"],
    summary: "Scheduled portfolio reports",
    description:
      "The WEEKLY and MONTHLY portfolio PDFs the scheduler built for this partner (per its reportSchedule), newest first; download one at GET /partner/reports/{id}.",
    protect: true,
  },
} satisfies TMeta;

export const ZListReportsInput = offsetInput(20, 100);
export const ZListReportsOutput = ZOffsetMeta.extend({
  rows: z.array(
    z.object({
      id: z.string(),
      schedule: z.enum(["WEEKLY", "MONTHLY"]),
      periodStart: z.string().datetime(),
      periodEnd: z.string().datetime(),
      clientCount: z.number().int().nonnegative(),
      sizeBytes: z.number().int().nonnegative(),
      createdAt: z.string().datetime(),
    }),
  ),
});
