import { SEVERITIES, SHARE_TYPES } from "@posture/db";
import { offsetInput, type TMeta } from "@posture/platform";
import { z } from "zod";
import { SHARE_SORTS } from "../services/sharing-items";

export const ZApproval = z.object({
  id: z.string(),
  itemId: z.string(),
  resourceName: z.string(),
  sharingType: z.string(),
  target: z.string(),
  reason: z.string(),
  approvedBy: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});

export const getSharingOverviewMeta = {
  openapi: {
    method: "GET",
    path: "/sharing/overview",
    tags: ["sharing"],
    summary: "What is shared outside the organization",
    description:
      "`overview` (external files, public links, outside domains by files reached, items by type), `trustedDomains`, plus `cards`, `topSharers` and `activeApprovals`.",
  },
} satisfies TMeta;
export const ZGetSharingOverviewOutput = z.object({
  overview: z.object({
    totalExternalFiles: z.number().int().nonnegative(),
    publicLinks: z.number().int().nonnegative(),
    externalDomains: z.array(z.object({ key: z.string(), count: z.number().int().nonnegative() })),
    byType: z.object({
      public: z.number().int().nonnegative(),
      external_user: z.number().int().nonnegative(),
      external_domain: z.number().int().nonnegative(),
    }),
  }),
  trustedDomains: z.array(z.string()),
  cards: z.array(z.object({ key: z.string(), label: z.string(), value: z.number().int().nonnegative() })),
  topSharers: z.array(
    z.object({ email: z.string(), name: z.string(), externalShares: z.number().int().nonnegative() }),
  ),
  activeApprovals: z.array(ZApproval),
  scannedAt: z.string().nullable(),
});

export const listSharingItemsMeta = {
  openapi: {
    method: "GET",
    path: "/sharing/items",
    tags: ["sharing"],
    summary: "External shares, riskiest first",
    description:
      "One row per file and sharing type (id `<resource_id>|<sharing_type>`). Filters `type`, `severity`; `sort` riskRank (default), severity, resourceName, ownerEmail or target, `order` asc or desc (default desc for riskRank and severity, else asc); ties are broken by id, so paging never repeats or skips. riskRank = severity × 1000 + sensitivity × 100 + audience × 10 + fan-out. Approved shares are left out until their approval expires. limit default 50, max 500.",
  },
} satisfies TMeta;
export const ZListSharingItemsInput = offsetInput(50, 500).extend({
  type: z.enum(SHARE_TYPES).optional(),
  severity: z.enum(SEVERITIES).optional(),
  sort: z.enum(SHARE_SORTS).default("riskRank"),
  order: z.enum(["asc", "desc"]).optional(),
});
export const ZListSharingItemsOutput = z.object({
  rows: z.array(
    z.object({
      id: z.string(),
      resourceName: z.string(),
      ownerEmail: z.string(),
      sharingType: z.enum(SHARE_TYPES),
      target: z
        .string()
        .describe("One outside address or domain (`anyone` for a public link): the first of `targets`"),
      targets: z
        .array(z.string())
        .describe("Every outside address or domain the file is shared with this way, sorted"),
      targetCount: z.number().int().nonnegative().describe("The number of `targets`"),
      permission: z.string(),
      severity: z.enum(SEVERITIES),
      riskRank: z.number().int().nonnegative(),
      sensitivity: z.string(),
      trustedDomain: z.boolean(),
    }),
  ),
  total: z.number().int().nonnegative(),
  limit: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  nextOffset: z.number().int().nonnegative().nullable(),
  sort: z.enum(SHARE_SORTS),
  order: z.enum(["asc", "desc"]),
});
