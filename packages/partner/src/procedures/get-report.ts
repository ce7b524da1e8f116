import { procedure } from "@posture/platform";
import { getPartnerReportPdf } from "../services/scheduled-reports";
import { getReportMeta, ZGetReportInput, ZGetReportOutput } from "./get-report.types";

export const getReport = procedure({ auth: "partner", plan: "enterprise" })
  .meta(getReportMeta)
  .input(ZGetReportInput)
  .output(ZGetReportOutput)
  .query(({ ctx, input }) =>
    getPartnerReportPdf(ctx.db, { partnerOrgId: ctx.principal.org.id, id: input.id }),
  );
