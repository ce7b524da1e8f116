import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";
import { getCampaign } from "../procedures/get-campaign";
import { listCampaigns } from "../procedures/list-campaigns";

export const campaignsRouter = (_deps: TPartnerDeps) => router({ list: listCampaigns, get: getCampaign });
