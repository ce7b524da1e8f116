import { download, procedure } from "@posture/platform";
import { buildGapReport } from "../services/gap-report-pdf";
import { getGapReportMeta, ZGetGapReportInput, ZGetGapReportOutput } from "./get-gap-report.types";

export const getGapReport = procedure({ auth: "apiKey", plan: "business" })
  .meta(getGapReportMeta)
  .input(ZGetGapReportInput)
  .output(ZGetGapReportOutput)
  .query(async ({ ctx, input }) => {
    const { pdf } = await buildGapReport(ctx.db, { orgId: ctx.principal.org.id, days: input.period });
    return download({
      filename: `gap-report-${new Date().toISOString().slice(0, 10)}.pdf`,
      contentType: "application/pdf",
      body: pdf,
    });
  });
