import { procedure } from "@posture/platform";
import { getPortfolio as portfolioOf } from "../services/portfolio";
import { getPortfolioMeta, ZGetPortfolioInput, ZGetPortfolioOutput } from "./get-portfolio.types";

export const getPortfolio = procedure({ auth: "partner", plan: "enterprise" })
  .meta(getPortfolioMeta)
  .input(ZGetPortfolioInput)
  .output(ZGetPortfolioOutput)
  .query(({ ctx, input }) => portfolioOf(ctx.db, { partnerOrgId: ctx.principal.org.id, ...input }));
