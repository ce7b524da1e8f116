import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { COMPLIANCE_FRAMEWORKS } from "../catalogs";
import { CONTROL_STATUSES } from "../engine/evaluate";

export const createReportMeta = {
  openapi: {
    method: "POST",
    path: "/compliance/reports",
    tags: ["compliance"],
    summary: "Run an evidence report",
    description:
      "Evaluates one framework's controls (SATISFIED, PARTIAL or GAP) from the findings, resources, audit trail, incidents and awareness data of the last `period` days, and stores the run (`runId`). Each control carries the reason for its status and the findings behind it.",
    protect: true,
  },
} satisfies TMeta;

export const ZFramework = z.enum(COMPLIANCE_FRAMEWORKS);

export const ZCreateReportInput = z.strictObject({
  period: z
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .describe("Look-back window in days (1 to 365; default 30)"),
  framework: ZFramework.default("soc2"),
});

export const ZControlOut = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(CONTROL_STATUSES),
  reason: z.string(),
  findingIds: z.array(z.string()),
});

export const ZCreateReportOutput = z.object({
  runId: z.string(),
  report: z.object({
    framework: ZFramework,
    periodDays: z.number().int().nonnegative(),
    satisfied: z.number().int().nonnegative(),
    partial: z.number().int().nonnegative(),
    gap: z.number().int().nonnegative(),
    controls: z.array(ZControlOut),
  }),
});
