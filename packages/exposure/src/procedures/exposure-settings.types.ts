import type { TMeta } from "@posture/platform";
import { z } from "zod";
import { BROAD_GROUP_THRESHOLD_MAX, BROAD_GROUP_THRESHOLD_MIN } from "../services/settings";

const THRESHOLD =
  "A grant to a directory group with at least this many members is a `broad_group_grant` finding (category `internal_exposure`). In a tenant of 10 people or more, a group of half the tenant's people counts as broad even below it.";

export const ZExposureSettings = z.object({
  broadGroupThreshold: z.number().int().describe(THRESHOLD),
});

export const ZUpdateExposureSettings = z.strictObject({
  broadGroupThreshold: z
    .number()
    .int()
    .min(BROAD_GROUP_THRESHOLD_MIN)
    .max(BROAD_GROUP_THRESHOLD_MAX)
    .optional()
    .describe(`${THRESHOLD} An integer from ${BROAD_GROUP_THRESHOLD_MIN} to ${BROAD_GROUP_THRESHOLD_MAX}.`),
});

const DESCRIPTION =
  "The organization's settings of the internal-exposure rules (issue 30; docs/exposure.md). A scan reads them when it starts: a change takes effect at the next scan of each connector, which re-judges every file (findings of groups now below the threshold resolve, those now above it open).";

export const getExposureSettingsMeta = {
  openapi: {
    method: "GET",
    path: "/exposure/settings",
    tags: ["exposure"],
    summary: "Internal-exposure settings",
    description: DESCRIPTION,
  },
  errors: ["not_found"],
} satisfies TMeta;

export const updateExposureSettingsMeta = {
  openapi: {
    method: "PATCH",
    path: "/exposure/settings",
    tags: ["exposure"],
    summary: "Change internal-exposure settings",
    description: `${DESCRIPTION} ADMIN or OWNER; audited (EXPOSURE_SETTINGS_CHANGED with the value's from and to).`,
    protect: true,
  },
  errors: ["not_found"],
} satisfies TMeta;
