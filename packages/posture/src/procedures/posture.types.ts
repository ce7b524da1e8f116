import { z } from "zod";
import { ZSeverity } from "./shared.types";
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
          .enum(["remove_public_link", "remove_external_access", "change_setting"])
          .describe(
            "What to do: remove a file's public link, remove a file's outside grants, or change a tenant setting",
          ),
        title: z.string().describe("The finding fixed, or for `change_setting` the fix naming the setting"),
        findingIds: z.array(z.string()).describe("The findings this one action resolves"),
        scoreDelta: z.number().int().positive().describe("How much the score rises once they are resolved"),
      }),
    )
    .describe("Actions that each resolve findings in one step and raise the score, best first, at most ten"),
});

export const listTimelineMeta = {
  openapi: {
    method: "GET",
    path: "/timeline",
    tags: ["timeline"],
    summary: "Findings, scans, audit events and OAuth grants, newest first",
    description:
      "Cursor-paginated: pass nextCursor as `before` (an ISO timestamp works too). `significant=true` keeps high-severity and security-relevant events.",
  },
} satisfies TMeta;
export const ZListTimelineInput = cursorInput(50, 100).extend({
  significant: z
    .union([z.boolean(), z.enum(["true", "false"])])
    .optional()
    .transform((v) => v === true || v === "true"),
});
export const ZListTimelineOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(["finding", "scan", "audit", "oauth_grant", "anomaly"]),
      severity: ZSeverity,
      title: z.string(),
      at: ZTimestamp,
    }),
  ),
  nextCursor: z.string().nullable(),
});
