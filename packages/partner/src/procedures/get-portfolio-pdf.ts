import { procedure } from "@posture/platform";
import { buildPortfolioPdf } from "../services/scheduled-reports";
import {
  getPortfolioPdfMeta,
  ZGetPortfolioPdfInput,
  ZGetPortfolioPdfOutput,
} from "./get-portfolio-pdf.types";

export const getPortfolioPdf = procedure({ auth: "partner", plan: "enterprise" })
  .meta(getPortfolioPdfMeta)
  .input(ZGetPortfolioPdfInput)
  .output(ZGetPortfolioPdfOutput)
  .query(({ ctx, input }) =>
    buildPortfolioPdf(ctx.db, {
      partnerOrgId: ctx.principal.org.id,
      period: input.period,
      groupId: input.groupId,
    }),
  );
