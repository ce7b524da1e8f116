import { router } from "@posture/platform";
import type { TPartnerDeps } from "../deps";
import { getCampaign } from "../procedures/campaign-get";
import { listCampaigns } from "../procedures/campaign-list";

export const campaignsRouter = (_deps: TPartnerDeps) => router({ list: listCampaigns, get: getCampaign });
