import { offsetPage, procedure } from "@posture/platform";
import { listPartnerReports } from "../services/scheduled-reports";
import { listReportsMeta, ZListReportsInput, ZListReportsOutput } from "./list-reports.types";

export const listReports = procedure({ auth: "partner", plan: "enterprise" })
  .meta(listReportsMeta)
  .input(ZListReportsInput)
  .output(ZListReportsOutput)
  .query(async ({ ctx, input }) => {
    const { rows, total } = await listPartnerReports(ctx.db, {
      partnerOrgId: ctx.principal.org.id,
      ...input,
    });
    return offsetPage(rows, { total, ...input });
  });
