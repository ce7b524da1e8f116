import { FINDING_CATEGORIES, PREVENTION_ACTIONS, SEVERITIES } from "@posture/db";
import { offsetInput, ZOffsetMeta, ZTimestamp, type TMeta } from "@posture/platform";
import { z } from "zod";
import { ZClientOrgIds, ZGroupId } from "./group.types";

const tags = ["partner"];
const STANDARDS = "/partner/standards";

// The client API's own rule shapes (POST /api/policies, /api/prevention-rules), so a standard's
// rule reads like the rule a client holds.
export const ZRuleMatch = z
  .strictObject({
    categories: z.array(z.enum(FINDING_CATEGORIES)).max(10).optional(),
    ruleIds: z.array(z.string().min(1).max(100)).max(50).optional(),
    minSeverity: z.enum(SEVERITIES).optional(),
  })
  .refine((m) => m.categories?.length || m.ruleIds?.length || m.minSeverity, {
    message: "match at least one of categories, ruleIds or minSeverity",
  });
const ZMatchOut = z.object({
  categories: z.array(z.string()).optional(),
  ruleIds: z.array(z.string()).optional(),
  minSeverity: z.enum(SEVERITIES).optional(),
});
const ZRuleName = z.string().trim().min(1).max(120);

export const ZStandardPolicyInput = z.strictObject({ name: ZRuleName, match: ZRuleMatch });
export const ZStandardPreventionInput = z.strictObject({
  name: ZRuleName,
  match: ZRuleMatch,
  action: z.enum(PREVENTION_ACTIONS).optional().describe("Default ALERT_ONLY"),
  dryRun: z.boolean().optional().describe("Default false"),
});

// A host name: labels of letters, digits and hyphens, at least one dot, no scheme or path.
const DOMAIN = /^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const ZDomain = z.string().max(253).regex(DOMAIN, "must be a lower-case domain name such as example.com");

const standardFields = {
  name: z.string().trim().min(1).max(120),
  description: z.string().trim().max(1000).nullable(),
  policies: z.array(ZStandardPolicyInput).max(100),
  preventionRules: z.array(ZStandardPreventionInput).max(100),
  trustedDomains: z
    .array(ZDomain)
    .max(500)
    .describe(
      "The domains assigned clients may trust (or below them); empty: trusted domains are not checked",
    ),
  minScore: z
    .number()
    .int()
    .min(0)
    .max(100)
    .nullable()
    .describe("Lowest posture score allowed; null: not checked"),
};

export const ZStandardId = z.string().min(1).max(64);

export const ZStandard = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  policies: z.array(
    z.object({
      id: z.string().describe("Derived from the match: stable across renames"),
      name: z.string(),
      match: ZMatchOut,
    }),
  ),
  preventionRules: z.array(
    z.object({ id: z.string(), name: z.string(), match: ZMatchOut, action: z.string(), dryRun: z.boolean() }),
  ),
  trustedDomains: z.array(z.string()),
  minScore: z.number().int().nullable(),
  assignments: z.object({ clientOrgIds: z.array(z.string()), groupIds: z.array(z.string()) }),
  createdAt: ZTimestamp,
  updatedAt: ZTimestamp,
});

export const listStandardsMeta = {
  openapi: {
    method: "GET",
    path: STANDARDS,
    tags,
    summary: "List standards",
    description: "The partner's baselines, by name (offset-paged), each with its assignments.",
    protect: true,
  },
} satisfies TMeta;
export const ZListStandardsInput = offsetInput(50, 500);
export const ZListStandardsOutput = z.object({ standards: z.array(ZStandard), ...ZOffsetMeta.shape });

export const createStandardMeta = {
  openapi: {
    method: "POST",
    path: STANDARDS,
    tags,
    summary: "Create a standard",
    description:
      "ADMIN+. A baseline: `policies` and `preventionRules` in the client API's rule shapes, `trustedDomains` (the domains a client may trust), `minScore`. A rule listed twice (same match, and for prevention the same action and dry run) is 400; a name already used 409 `conflict`. Audited.",
    protect: true,
    successDescription: "Created",
  },
  successStatus: 201,
  errors: ["conflict"],
} satisfies TMeta;
export const ZCreateStandardInput = z.strictObject({
  name: standardFields.name,
  description: standardFields.description.optional(),
  policies: standardFields.policies.optional(),
  preventionRules: standardFields.preventionRules.optional(),
  trustedDomains: standardFields.trustedDomains.optional(),
  minScore: standardFields.minScore.optional(),
});

export const getStandardMeta = {
  openapi: {
    method: "GET",
    path: `${STANDARDS}/{id}`,
    tags,
    summary: "A standard",
    description: "404 for another partner's standard.",
    protect: true,
  },
} satisfies TMeta;
export const ZStandardIdInput = z.strictObject({ id: ZStandardId });

export const updateStandardMeta = {
  openapi: {
    method: "PATCH",
    path: `${STANDARDS}/{id}`,
    tags,
    summary: "Change a standard",
    description:
      "ADMIN+. Every field optional; a list given replaces the old one. The assigned clients' drift is recomputed. Audited.",
    protect: true,
  },
  errors: ["conflict"],
} satisfies TMeta;
export const ZUpdateStandardInput = z.strictObject({
  id: ZStandardId,
  name: standardFields.name.optional(),
  description: standardFields.description.optional(),
  policies: standardFields.policies.optional(),
  preventionRules: standardFields.preventionRules.optional(),
  trustedDomains: standardFields.trustedDomains.optional(),
  minScore: standardFields.minScore.optional(),
});

export const deleteStandardMeta = {
  openapi: {
    method: "DELETE",
    path: `${STANDARDS}/{id}`,
    tags,
    summary: "Delete a standard",
    description: "ADMIN+. Its assignments and its drift go with it. Audited.",
    protect: true,
  },
} satisfies TMeta;
export const ZDeleteStandardOutput = z.object({ deleted: z.literal(true) });

export const setAssignmentsMeta = {
  openapi: {
    method: "PUT",
    path: `${STANDARDS}/{id}/assignments`,
    tags,
    summary: "Assign a standard to clients and groups",
    description:
      "ADMIN+. Replaces the assignments: `clientOrgIds` (managed clients) and `groupIds` (the partner's groups; every client in the group, now and later, holds the standard). An id that is not the partner's is 404 and nothing changes. Drift is recomputed. Audited.",
    protect: true,
  },
} satisfies TMeta;
export const ZSetAssignmentsInput = z.strictObject({
  id: ZStandardId,
  clientOrgIds: ZClientOrgIds,
  groupIds: z
    .array(ZGroupId)
    .max(1000)
    .refine((ids) => new Set(ids).size === ids.length, { message: "must not repeat an id" }),
});
