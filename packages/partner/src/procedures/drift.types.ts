import { SEVERITIES } from "@posture/db";
import { offsetInput, ZOffsetMeta, ZTimestamp, type TMeta } from "@posture/platform";
import { z } from "zod";
import { ZClientOrgId, ZGroupId } from "./group.types";
import { ZStandardId } from "./standard.types";

export const ZDrift = z.object({
  id: z.string(),
  standardId: z.string(),
  standardName: z.string(),
  clientOrgId: z.string(),
  clientName: z.string(),
  rule: z
    .string()
    .describe(
      "The rule of the standard: `policy:<id>`, `prevention:<id>`, `trusted_domain:<domain>`, `min_score`",
    ),
  kind: z.enum(["policy", "prevention", "trusted_domain", "min_score"]),
  severity: z.enum(SEVERITIES),
  detail: z
    .record(z.string(), z.unknown())
    .describe(
      "What the client has instead: `status` (missing, disabled, weaker, beyond_standard, below_minimum) and its particulars",
    ),
  since: ZTimestamp,
  checkedAt: ZTimestamp,
  resolvedAt: ZTimestamp.nullable(),
});

const filters = {
  clientOrgId: ZClientOrgId.optional(),
  groupId: ZGroupId.optional(),
  status: z.enum(["open", "resolved", "all"]).optional().describe("Default open"),
};

export const listStandardDriftMeta = {
  openapi: {
    method: "GET",
    path: "/partner/standards/{id}/drift",
    tags: ["partner"],
    summary: "A standard's drift, per client and rule",
    description:
      "Each assigned client's departures from the standard, one row per client and rule, by client name (offset-paged). Optional `clientOrgId`, `groupId`, `status` (open, the default; resolved; all). A standard, client or group not the partner's is 404.",
    protect: true,
  },
  errors: ["not_found"],
} satisfies TMeta;
export const ZListStandardDriftInput = offsetInput(50, 500).extend({ id: ZStandardId, ...filters });

export const listDriftMeta = {
  openapi: {
    method: "GET",
    path: "/partner/drift",
    tags: ["partner"],
    summary: "Drift across every standard",
    description:
      "Open drift from all the partner's standards, by client (offset-paged); optional `clientOrgId`, `groupId`, `status`. A client or group not the partner's is 404.",
    protect: true,
  },
  errors: ["not_found"],
} satisfies TMeta;
export const ZListDriftInput = offsetInput(50, 500).extend(filters);
export const ZListDriftOutput = z.object({ drift: z.array(ZDrift), ...ZOffsetMeta.shape });
