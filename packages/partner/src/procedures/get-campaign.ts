import { procedure } from "@posture/platform";
import { getCampaign as campaignOf } from "../services/campaigns";
import { getCampaignMeta, ZGetCampaignInput, ZGetCampaignOutput } from "./get-campaign.types";

export const getCampaign = procedure({ auth: "partner", plan: "enterprise" })
  .meta(getCampaignMeta)
  .input(ZGetCampaignInput)
  .output(ZGetCampaignOutput)
  .query(({ ctx, input }) => campaignOf(ctx.db, { partnerOrgId: ctx.principal.org.id, id: input.id }));
