import { PLAN_IDS } from "@posture/db";
import { type TMeta, ZTimestamp } from "@posture/platform";
import { z } from "zod";

export const getUsageMeta = {
  openapi: {
    method: "GET",
    path: "/usage",
    tags: ["usage"],
    summary: "Plan and usage",
    description:
      "The organization's plan, its limits and features now (a downgraded organization keeps the previous plan's for the grace period), connected sources and today's (UTC) manual scans.",
    protect: true,
  },
} satisfies TMeta;

export const ZGetUsageInput = z.void();

export const ZUsage = z.object({
  plan: z.enum(PLAN_IDS),
  inGrace: z.boolean(),
  graceEndsAt: ZTimestamp.nullable(),
  sources: z.object({ used: z.number().int().nonnegative(), max: z.number().int().nonnegative().nullable() }),
  scans: z.object({
    usedToday: z.number().int().nonnegative(),
    maxPerDay: z.number().int().nonnegative().nullable(),
  }),
  features: z.object({
    apiAccess: z.boolean(),
    flowGuard: z.boolean(),
    agentGuard: z.boolean(),
    ueba: z.boolean(),
    ticketing: z.boolean(),
    complianceExport: z.boolean(),
    whiteLabel: z.boolean(),
  }),
});
