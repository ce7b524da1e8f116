import { z } from "zod";
import { offsetInput, ZOffsetMeta, ZTimestamp, type TMeta } from "@posture/platform";

export const listActionsMeta = {
  openapi: {
    method: "GET",
    path: "/partner/actions",
    tags: ["partner"],
    summary: "Partner actions",
    description:
      "The partner's act-once actions, newest first (offset-paged), with how many clients each reached and in how many a remediation was planned; each client's status now is in GET /partner/actions/{id}.",
    protect: true,
  },
} satisfies TMeta;

export const ZListActionsInput = offsetInput(20, 100);
export const ZListActionsOutput = ZOffsetMeta.extend({
  rows: z.array(
    z.object({
      id: z.string(),
      source: z.enum(["campaign", "standard"]),
      sourceId: z.string(),
      createdBy: z.string(),
      createdAt: ZTimestamp,
      clientCount: z.number().int().nonnegative(),
      plannedCount: z.number().int().nonnegative(),
    }),
  ),
});
