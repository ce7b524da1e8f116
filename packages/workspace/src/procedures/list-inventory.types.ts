import { offsetInput, ZOffsetMeta, type TMeta } from "@posture/platform";
import { z } from "zod";
import { INVENTORY_TYPES } from "../services/inventory";

export const getInventoryMeta = {
  openapi: {
    method: "GET",
    path: "/inventory",
    tags: ["inventory"],
    summary: "Users, files, shared drives or repositories of the connected sources",
    description:
      "From the latest scan of each connector. `search` is a case-insensitive substring of name, e-mail or owner. `label` (files only) keeps the files carrying that sensitivity label (case-insensitive, the whole name). Users are ordered by e-mail, files newest-modified first, shared drives most outside members first, repositories (`type=repositories`: the GitHub connectors', with `visibility` and `outsideCollaborators`; also listed under `files` with mimeType `application/vnd.github.repository`) most recently pushed first. Offset-paginated: limit default 50, max 200. `metrics` depend on the type (files: `labelled` counts files carrying a label, `sensitiveLabelled` the highly sensitive ones among them; `orgWide` the files everyone in the organization can open, `orgWideSensitive` the highly sensitive ones among them, `orgWidePct` their share of all files, `internalExposureFindings` the open findings of category `internal_exposure`: organization-wide links, everyone grants and broad group grants). With `search` or `label`, `total` is exact up to 5,000 matches and on the last page of any search; past that it is PostgreSQL's planner estimate of the matches and `totalEstimated` is true (counting a common phrase's matches in a million files would cost ten times the page). `nextOffset` is null only on the last page either way.",
  },
} satisfies TMeta;

export const ZGetInventoryInput = offsetInput(50, 200).extend({
  type: z.enum(INVENTORY_TYPES).default("users"),
  search: z.string().max(200).optional(),
  label: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe(
      "Files only: keep the files whose sensitivity label is this one (case-insensitive, whole name, e.g. `Confidential`).",
    ),
  orgWide: z
    .union([z.boolean(), z.enum(["true", "false"])])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === true || v === "true"))
    .describe(
      "Files only: `true` keeps the files everyone in the organization can open (an organization-wide link or grant), `false` the others.",
    ),
  // A plain number: the REST layer turns a decimal query value into one (rest-input.ts); " 1" stays text.
  minReach: z
    .number()
    .int()
    .min(0)
    .max(10_000_000)
    .optional()
    .describe("Files only: keep the files at least this many people can open (`reach.people`)."),
});

const ZUserRow = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  isAdmin: z.boolean(),
  mfaEnabled: z
    .boolean()
    .nullable()
    .describe(
      "Null when the source could not say (Microsoft 365 without Entra ID P1/P2 or AuditLog.Read.All); counted in `metrics.mfaUnknown`, not in the coverage",
    ),
  status: z.string(),
  lastSignInAt: z.string().nullable(),
  dormant: z.boolean(),
  externalSharesOwned: z.number().int().nonnegative(),
  connectorId: z.string(),
});
const ZFileRow = z.object({
  id: z.string(),
  name: z.string(),
  ownerEmail: z.string(),
  mimeType: z.string(),
  sharing: z.enum(["public", "external", "internal", "private"]),
  externalShares: z.number().int().nonnegative(),
  sensitivity: z
    .enum(["high", "medium", "low"])
    .describe("From the sensitivity label first (Confidential and above is `high`), else the file's name."),
  label: z
    .string()
    .nullable()
    .describe(
      "The source's sensitivity label, by its display name (a Google Drive label choice, a Microsoft Purview sensitivity label), or null when the file carries none or the source's labels are not read.",
    ),
  sharedDriveId: z.string().nullable(),
  sizeBytes: z.number().nonnegative(),
  modifiedAt: z.string(),
  reach: z
    .object({
      people: z
        .number()
        .int()
        .nonnegative()
        .describe(
          "How many distinct people can open the file: the tenant's people count when `orgWide`; else the owner, the users granted, and the members of granted groups (each once where the members are known).",
        ),
      orgWide: z
        .boolean()
        .describe(
          "An organization-wide link, a grant to the tenant's domain or to Everyone reaches everyone inside.",
        ),
    })
    .describe("Who can open the file, computed by the scan (issue 30)."),
  connectorId: z.string(),
});
const ZRepositoryRow = z.object({
  id: z.string(),
  name: z.string().describe("The repository's full name, `owner/name`"),
  visibility: z.enum(["public", "internal", "private"]),
  outsideCollaborators: z
    .number()
    .int()
    .nonnegative()
    .describe("People outside the organization granted access to the repository directly"),
  sensitivity: z
    .enum(["high", "medium", "low"])
    .describe(
      "From the repository's name and its content signals (open secret scanning alerts make it `high`)",
    ),
  signal: z
    .string()
    .nullable()
    .describe("The content signal that rated it, e.g. `Secret scanning alerts open`"),
  pushedAt: z.string(),
  reach: z.object({ people: z.number().int().nonnegative(), orgWide: z.boolean() }),
  connectorId: z.string(),
});
const ZDriveRow = z.object({
  id: z.string(),
  name: z.string(),
  memberCount: z.number().int().nonnegative(),
  externalMemberCount: z.number().int().nonnegative(),
  restrictionStatus: z.string(),
  filesCount: z.number().int().nonnegative(),
  securityStatus: z.string(),
  connectorId: z.string(),
});

export const ZGetInventoryOutput = ZOffsetMeta.extend({
  type: z.enum(INVENTORY_TYPES),
  totalEstimated: z
    .boolean()
    .describe(
      "True when `total` is an estimate: a search or label filter matching more than 5,000 rows, on any page but the last. False when `total` is exact.",
    ),
  rows: z.array(z.union([ZUserRow, ZFileRow, ZDriveRow, ZRepositoryRow])),
  metrics: z.record(z.string(), z.number()),
});
