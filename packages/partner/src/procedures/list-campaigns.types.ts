import { offsetInput, ZOffsetMeta, ZTimestamp, type TMeta } from "@posture/platform";
import { CAMPAIGN_KINDS, CAMPAIGN_STATUSES, SEVERITIES } from "@posture/db";
import { z } from "zod";

export const listCampaignsMeta = {
  openapi: {
    method: "GET",
    path: "/partner/campaigns",
    tags: ["partner"],
    summary: "Cross-client radar: campaigns across managed clients",
    description:
      "The same OAuth app (`oauth_app`, by OAuth client id), AI agent (`ai_agent`), outside domain receiving shares (`outside_domain`) or anomaly type (`anomaly`) new in 2 or more of the partner's clients within 30 days is one campaign: what, which clients, since when, how severe. Most severe first, then the widest, then the most recent. Filters: `status` (ACTIVE or RESOLVED), `kind`, `groupId` (campaigns touching a client of that group; another partner's group is 404), `minClients`. Only clients that have not withdrawn the partner's access are listed or counted. Offset-paginated: limit default 50, max 500. Announced as `portfolio.campaign.detected` / `portfolio.campaign.updated`. See docs/partner.md.",
    protect: true,
  },
  errors: ["not_found"],
} satisfies TMeta;

export const ZCampaignKind = z.enum(CAMPAIGN_KINDS);

export const ZCampaign = z.object({
  id: z.string(),
  kind: ZCampaignKind,
  subject: z.string().describe("The OAuth client id (apps, agents), the outside domain, or the anomaly type"),
  title: z.string(),
  severity: z.enum(SEVERITIES),
  status: z.enum(CAMPAIGN_STATUSES),
  clientCount: z.number().int().nonnegative(),
  clientOrgIds: z.array(z.string()),
  firstSeenAt: ZTimestamp.describe("When the subject first showed in any of the clients"),
  lastSeenAt: ZTimestamp.describe("Its latest grant, shared file change or anomaly in any of them"),
  resolvedAt: ZTimestamp.nullable(),
});

export const ZListCampaignsInput = offsetInput(50, 500).extend({
  status: z.enum(CAMPAIGN_STATUSES).optional(),
  kind: ZCampaignKind.optional(),
  groupId: z.string().min(1).max(64).optional(),
  minClients: z.number().int().min(1).max(100_000).optional(),
});
export const ZListCampaignsOutput = ZOffsetMeta.extend({ rows: z.array(ZCampaign) });
