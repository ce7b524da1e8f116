import { procedure } from "@posture/platform";
import { listCampaigns as listOf } from "../services/campaigns";
import { listCampaignsMeta, ZListCampaignsInput, ZListCampaignsOutput } from "./list-campaigns.types";

export const listCampaigns = procedure({ auth: "partner", plan: "enterprise" })
  .meta(listCampaignsMeta)
  .input(ZListCampaignsInput)
  .output(ZListCampaignsOutput)
  .query(({ ctx, input }) => listOf(ctx.db, { partnerOrgId: ctx.principal.org.id, ...input }));
