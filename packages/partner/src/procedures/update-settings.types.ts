import { REPORT_SCHEDULES } from "@posture/db";
import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const updateSettingsMeta = {
  openapi: {
    method: "PATCH",
    path: "/partner/settings",
    tags: ["partner"],
    summary: "Update partner settings",
    description:
      "All fields optional. `name` is printed on reports; `reportSchedule` sends a WEEKLY or MONTHLY portfolio PDF (GET /partner/reports, event partner.report.ready); `notifyUnhealthy` sends client.unhealthy when a client's source turns unhealthy or its score drops by 10 points or more. White label: `logoUrl` (https; fetched once, PNG or JPEG, at most 512 KiB; null removes it) and `accentColor` (#RRGGBB).",
    protect: true,
  },
} satisfies TMeta;

export const ZPartnerSettings = z.object({
  name: z.string(),
  reportSchedule: z.enum(REPORT_SCHEDULES),
  notifyUnhealthy: z.boolean(),
  logoUrl: z.string().nullable(),
  accentColor: z.string().nullable(),
});

export const ZUpdateSettingsInput = z.strictObject({
  name: z.string().trim().min(1).max(120).optional(),
  reportSchedule: z.enum(REPORT_SCHEDULES).optional(),
  notifyUnhealthy: z.boolean().optional(),
  logoUrl: z
    .url({ protocol: /^https$/, message: "must be an https URL" })
    .max(2048)
    .nullable()
    .optional(),
  accentColor: z
    .string()
    .regex(/^#[0-9A-Fa-f]{6}$/, "must be #RRGGBB")
    .nullable()
    .optional(),
});

export const ZUpdateSettingsOutput = ZPartnerSettings;
