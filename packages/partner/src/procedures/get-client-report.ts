import { procedure } from "@posture/platform";
import { getClientReport as clientReportOf } from "../services/portfolio";
import {
  getClientReportMeta,
  ZGetClientReportInput,
  ZGetClientReportOutput,
} from "./get-client-report.types";

export const getClientReport = procedure({ auth: "partner", plan: "enterprise" })
  .meta(getClientReportMeta)
  .input(ZGetClientReportInput)
  .output(ZGetClientReportOutput)
  .query(({ ctx, input }) =>
    clientReportOf(ctx.db, { partnerOrgId: ctx.principal.org.id, orgId: input.orgId }),
  );
