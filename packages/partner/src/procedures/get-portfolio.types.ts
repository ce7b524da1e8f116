import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const getPortfolioMeta = {
  openapi: {
    method: "GET",
    path: "/partner/reports/portfolio",
    tags: ["partner"],
    summary: "Portfolio of managed organizations",
    description:
      "Every organization the partner manages with its latest posture score and open critical findings. A client not yet scanned is listed with `postureScore` 0 and `scanned: false`, counted in `totals.unscanned` and left out of `avgScore` (the average of the scanned clients; 0 while none is). Each client carries its open drift from the partner's standards (`drift.open`, `drift.critical`) and its open internal-exposure findings (`internalExposure.open`, `.critical`; totals `internalExposureOpen`, `internalExposureCritical`). Optional `groupId`: only that group's clients (another partner's group is 404).",
    protect: true,
  },
  errors: ["not_found"],
} satisfies TMeta;

/** A client's score: the spec's integer, 0 (with `scanned: false`) until its first completed scan. */
export const ZClientScore = z.object({
  postureScore: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe("0 until the first completed scan (`scanned: false`)"),
  scanned: z.boolean().describe("false until the client's first completed scan"),
});

export const ZGetPortfolioInput = z.strictObject({
  groupId: z.string().min(1).max(64).optional().describe("Only this group's clients"),
});
export const ZGetPortfolioOutput = z.object({
  totals: z.object({
    clients: z.number().int().min(0),
    unscanned: z.number().int().min(0).describe("Clients without a completed scan yet"),
    openCritical: z.number().int().min(0),
    avgScore: z
      .number()
      .int()
      .min(0)
      .max(100)
      .describe("Average score of the scanned clients; 0 while none is"),
    driftOpen: z.number().int().min(0).describe("Open drift of the listed clients"),
    driftCritical: z.number().int().min(0).describe("Open critical drift of the listed clients"),
    internalExposureOpen: z
      .number()
      .int()
      .min(0)
      .describe("Open `internal_exposure` findings of the listed clients"),
    internalExposureCritical: z
      .number()
      .int()
      .min(0)
      .describe("Open critical `internal_exposure` findings of the listed clients"),
  }),
  clients: z.array(
    z.object({
      orgId: z.string(),
      name: z.string(),
      ...ZClientScore.shape,
      openCritical: z.number().int().min(0),
      drift: z
        .object({ open: z.number().int().min(0), critical: z.number().int().min(0) })
        .describe("Open drift from the partner's standards (GET /partner/drift?clientOrgId=)"),
      internalExposure: z
        .object({ open: z.number().int().min(0), critical: z.number().int().min(0) })
        .describe(
          "Open findings of category `internal_exposure` (org_wide_link, org_wide_grant, broad_group_grant): what everyone inside, and so Copilot or Gemini, can open. The client's AI readiness in detail: GET /partner/clients/{orgId}/exposure/ai",
        ),
    }),
  ),
});
