import { ZTimestamp, type TMeta } from "@posture/platform";
import { z } from "zod";
import { ZCampaign } from "./list-campaigns.types";

export const getCampaignMeta = {
  openapi: {
    method: "GET",
    path: "/partner/campaigns/{id}",
    tags: ["partner"],
    summary: "One cross-client campaign with its clients and evidence",
    description:
      "The campaign, its clients by name and, per client, when the subject first and last showed there and the records that show it (`evidence`: grant ids for apps and agents, sharing item ids for outside domains, anomaly ids; at most 20 ids, `count` is the full number). 404 for another partner's campaign, or one none of whose clients the partner may still read.",
    protect: true,
  },
} satisfies TMeta;

export const ZGetCampaignInput = z.strictObject({ id: z.string().min(1).max(64) });
export const ZGetCampaignOutput = ZCampaign.extend({
  label: z.string().nullable().describe("Apps and agents: the app's name"),
  publisher: z.string().nullable().describe("Apps and agents: the publisher the grants name"),
  clients: z.array(
    z.object({
      orgId: z.string(),
      name: z.string(),
      firstSeenAt: ZTimestamp,
      lastSeenAt: ZTimestamp,
      evidence: z.object({
        type: z.enum(["grant", "share", "anomaly"]),
        ids: z.array(z.string()),
        count: z.number().int().nonnegative(),
      }),
    }),
  ),
});
