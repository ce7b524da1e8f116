import { procedure, scopeOf } from "@posture/platform";
import { createEvidenceReport } from "../services/reports";
import { createReportMeta, ZCreateReportInput, ZCreateReportOutput } from "./create-report.types";

// starter+: the spec's "report export" (contract, Plans and features).
export const createReport = procedure({ auth: "apiKey", plan: "starter" })
  .meta(createReportMeta)
  .input(ZCreateReportInput)
  .output(ZCreateReportOutput)
  .mutation(({ ctx, input }) =>
    createEvidenceReport(ctx.db, {
      ...scopeOf(ctx.principal),
      framework: input.framework,
      periodDays: input.period,
    }),
  );
