import { z } from "zod";
import { ZFindingCategory, ZSeverity } from "./shared.types";
import { cursorInput, ZTimestamp, type TMeta } from "@posture/platform";

export const getPostureHistoryMeta = {
  openapi: {
    method: "GET",
    path: "/posture/history",
    tags: ["posture"],
    summary: "Posture score after each completed scan, oldest first",
  },
} satisfies TMeta;
export const ZPostureHistoryOutput = z.object({
  history: z.array(z.object({ score: z.number().int().min(0).max(100), at: ZTimestamp })),
});

export const getPostureBreakdownMeta = {
  openapi: {
    method: "GET",
    path: "/posture/breakdown",
    tags: ["posture"],
    summary: "Current score, grade, per-category deductions, top improvements and quick wins",
  },
} satisfies TMeta;
export const ZPostureBreakdownOutput = z.object({
  score: z.number().int().min(0).max(100),
  grade: z.string(),
  categories: z.array(
    z.object({
      category: z.string(),
      deductionPoints: z.number().int().nonnegative(),
      findingCount: z.number().int().nonnegative(),
    }),
  ),
  topImprovements: z.array(z.object({ findingId: z.string(), scoreDelta: z.number().int() })),
  quickWins: z
    .array(
      z.object({
        action: z
          .enum([
            "remove_public_link",
            "remove_external_access",
            "revoke_oauth_grant",
            "remove_org_wide_link",
            "remove_everyone_grant",
            "remove_group_grant",
            "change_setting",
          ])
          .describe(
            "What to do: remove public links, remove outside access to files, revoke apps' grants, remove organization-wide links, grants to everyone in the tenant or broad groups' grants (internal exposure), or change a tenant setting",
          ),
        title: z
          .string()
          .describe(
            'The action over its group ("Remove 41 public links"), or for `change_setting` the fix naming the setting',
          ),
        findingIds: z.array(z.string()).describe("The group's findings, at most 500, the most severe first"),
        findingCount: z
          .number()
          .int()
          .min(1)
          .describe("How many open findings the group holds (more than findingIds when the group is capped)"),
        scoreDelta: z
          .number()
          .int()
          .positive()
          .describe("The exact rise in score once every finding of the group is resolved"),
        steps: z.number().int().min(1).describe("Changes at the source it takes (links, grants)"),
        plan: z
          .union([
            z.object({ findingIds: z.array(z.string()) }),
            z.object({
              quickWin: z
                .enum([
                  "public_links",
                  "untrusted_shares",
                  "trusted_shares",
                  "unverified_broad_apps",
                  "unverified_apps",
                  "org_wide_links",
                  "everyone_grants",
                  "broad_group_grants",
                ])
                .describe("Every open finding of the group, read by the planner"),
            }),
          ])
          .nullable()
          .describe(
            "The POST /remediations body that carries it out: the findings when findingIds holds the whole group, else the group; null for a tenant setting (admin console)",
          ),
      }),
    )
    .describe(
      "One action over a group of findings each (all public links, outside shares with untrusted domains, unverified apps…) or one tenant setting, ranked by points gained per step, at most ten; never empty while such an action raises the score",
    ),
});

export const listTimelineMeta = {
  openapi: {
    method: "GET",
    path: "/timeline",
    tags: ["timeline"],
    summary: "Findings, scans, audit events and OAuth grants, newest first",
    description:
      "Cursor-paginated: pass nextCursor as `before` (an ISO timestamp works too). `significant=true` keeps high-severity and security-relevant events. A finding's item carries its `category` and `ruleId` (null on the other kinds); `category` keeps only the findings of that category (e.g. `internal_exposure`: organization-wide links, everyone grants, broad group grants).",
  },
} satisfies TMeta;
export const ZListTimelineInput = cursorInput(50, 100).extend({
  significant: z
    .union([z.boolean(), z.enum(["true", "false"])])
    .optional()
    .transform((v) => v === true || v === "true"),
  category: ZFindingCategory.optional().describe("Only the findings of this category"),
});
export const ZListTimelineOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(["finding", "scan", "audit", "oauth_grant", "anomaly"]),
      severity: ZSeverity,
      title: z.string(),
      at: ZTimestamp,
      category: ZFindingCategory.nullable().describe("A finding's category; null on the other kinds"),
      ruleId: z.string().nullable().describe("A finding's rule id; null on the other kinds"),
    }),
  ),
  nextCursor: z.string().nullable(),
});
