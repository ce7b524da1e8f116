import { EXPOSURES, SENSITIVITIES, SEVERITIES } from "@posture/db";
import type { TMeta } from "@posture/platform";
import { z } from "zod";

const ZCount = z.number().int().nonnegative();

export const ZAiFileRow = z.object({
  fileId: z.string().describe("The file's inventory id (workspace file id)."),
  name: z.string(),
  label: z.string().nullable().describe("The source's sensitivity label, null when the file has none."),
  reach: z.object({
    people: ZCount.describe("How many distinct people can open the file."),
    orgWide: z
      .boolean()
      .describe("A link or grant reaches everyone in the organization (or anyone with the link)."),
  }),
  sensitivity: z.enum(SENSITIVITIES).describe("From the label and the name: high, medium or low."),
  exposure: z.enum(EXPOSURES).describe("The widest audience of the file's permissions."),
  ownerEmail: z.string(),
  connectorId: z.string(),
});

const ZBySensitivity = z
  .object(
    Object.fromEntries(SENSITIVITIES.map((s) => [s, ZCount])) as Record<
      (typeof SENSITIVITIES)[number],
      typeof ZCount
    >,
  )
  .describe("Reachable files by sensitivity.");
const ZByExposure = z
  .object(
    Object.fromEntries(EXPOSURES.map((e) => [e, ZCount])) as Record<
      (typeof EXPOSURES)[number],
      typeof ZCount
    >,
  )
  .describe("Reachable files by exposure (the widest audience of their permissions).");
const ZSeverityCounts = z.object(
  Object.fromEntries(SEVERITIES.map((s) => [s, ZCount])) as Record<
    (typeof SEVERITIES)[number],
    typeof ZCount
  >,
);

export const ZAssistant = z.object({
  id: z.string().describe("`copilot`, `gemini`, or an agent's id (agt_…, as in /agent-guard)."),
  kind: z.enum(["copilot", "gemini", "agent"]),
  label: z.string(),
  reachableFiles: ZCount.describe("Files at least one of its users (an agent: it) can open."),
  sensitiveReachableFiles: ZCount.describe("Of those, highly sensitive files."),
  users: ZCount.describe(
    "Assistants: active users holding its licence. Agents: distinct users who granted it.",
  ),
  orgWideFiles: ZCount.describe("Reachable files that reach everyone in the organization."),
  bySensitivity: ZBySensitivity,
  byExposure: ZByExposure,
  worstFiles: z.array(ZAiFileRow).describe("The five most sensitive, widest-reaching files it can reach."),
  access: z
    .enum(["application", "delegated"])
    .optional()
    .describe(
      "Agents only: application (every file of its connector) or delegated (its granting users' files).",
    ),
  connectorId: z.string().optional().describe("Agents only: the connector whose grants it holds."),
});

export const ZAiQuickWin = z.object({
  action: z
    .string()
    .describe(
      "The remediation action the plan takes (remove_org_wide_link, remove_everyone_grant, remove_group_grant).",
    ),
  title: z.string(),
  findingIds: z
    .array(z.string())
    .describe("The group's open findings, worst first (at most 500; findingCount says how many)."),
  findingCount: ZCount,
  readinessDelta: z
    .number()
    .int()
    .describe("How much the readiness score rises once the plan resolves the group's findings."),
  predictedScore: z.number().int().min(0).max(100).describe("The readiness score after the plan."),
  predictedPostureScore: z
    .number()
    .int()
    .min(0)
    .max(100)
    .nullable()
    .describe("The posture score after the plan (POST /api/posture/simulate of the same findings)."),
  postureScoreDelta: z.number().int().nullable(),
  plan: z
    .object({ quickWin: z.string() })
    .describe(
      "The body of POST /api/remediations that plans it (`org_wide_links`, `everyone_grants`, `broad_group_grants`).",
    ),
});

export const getAiExposureMeta = {
  openapi: {
    method: "GET",
    path: "/exposure/ai",
    tags: ["exposure"],
    summary: "AI readiness: what each assistant and agent can reach",
    description:
      "score 0–100 = round(100·files / (files + 5·points)), points = the open internal_exposure findings weighted CRITICAL 8, HIGH 4, MEDIUM 2, LOW 1 (100 with none); grade A 90+, B 80+, C 70+, D 60+, else F. assistants: Microsoft 365 Copilot / Gemini / GitHub Copilot (for each source the organization connects; reach = the files, or GitHub repositories, their active licensed users can open) and every AI agent (application access: every file of its connector; delegated: what its granting users can open). quickWins: remediation plans per internal-exposure group with the predicted readiness and posture scores. docs/exposure.md explains the model.",
  },
} satisfies TMeta;

export const ZGetAiExposureOutput = z.object({
  score: z.number().int().min(0).max(100),
  grade: z.string(),
  assistants: z.array(ZAssistant),
  quickWins: z.array(ZAiQuickWin),
  summary: z.object({
    files: ZCount.describe("The organization's files (all connectors)."),
    points: ZCount.describe("The weighted open internal-exposure findings the score deducts."),
    findings: ZSeverityCounts.describe("Open internal_exposure findings by severity."),
  }),
});

export const listAiFilesMeta = {
  openapi: {
    method: "GET",
    path: "/exposure/ai/files",
    tags: ["exposure"],
    summary: "The files AI assistants can reach",
    description:
      "Offset-paged (limit default 50, max 200), most sensitive then widest reach first. assistant: `copilot`, `gemini`, `github_copilot` or an agent id (404 when unknown); absent: the files any assistant's licensed users can open. severity: only files with an open internal_exposure finding of that severity.",
  },
  errors: ["not_found"],
} satisfies TMeta;

export const ZListAiFilesInput = z.strictObject({
  assistant: z.string().trim().min(1).max(100).optional(),
  severity: z.enum(SEVERITIES).optional(),
  limit: z.number().int().min(1).max(200).default(50),
  offset: z.number().int().min(0).max(10_000_000).default(0),
});

export const ZListAiFilesOutput = z.object({
  rows: z.array(ZAiFileRow),
  total: ZCount,
  limit: ZCount,
  offset: ZCount,
});
