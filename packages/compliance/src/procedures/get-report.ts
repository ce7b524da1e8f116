import { procedure } from "@posture/platform";
import { getEvidenceRun } from "../services/runs";
import { getReportMeta, ZGetReportInput, ZGetReportOutput } from "./get-report.types";

export const getReport = procedure({ auth: "apiKey", plan: "starter" })
  .meta(getReportMeta)
  .input(ZGetReportInput)
  .output(ZGetReportOutput)
  .query(({ ctx, input }) => getEvidenceRun(ctx.db, { orgId: ctx.principal.org.id, runId: input.runId }));
