import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { CONTROL_STATUSES } from "../engine/evaluate";
import { ZCreateReportOutput } from "./create-report.types";

export const getReportMeta = {
  openapi: {
    method: "GET",
    path: "/compliance/reports/{runId}",
    tags: ["compliance"],
    summary: "A stored evidence report",
    description:
      "A run made by POST /compliance/reports, as it was evaluated then, with `changes`: the controls whose status differs from the organization's previous run of the same framework (`previousRunId`).",
    protect: true,
  },
} satisfies TMeta;

export const ZGetReportInput = z.strictObject({ runId: z.string().min(1).max(64) });

const ZStatus = z.enum(CONTROL_STATUSES);
export const ZGetReportOutput = ZCreateReportOutput.extend({
  createdAt: z.string().datetime(),
  previousRunId: z.string().nullable(),
  changes: z.array(z.object({ id: z.string(), from: ZStatus, to: ZStatus })),
});
