import { atLeast, managedClients, procedure, type TMeta } from "@posture/platform";
import { z } from "zod";
import type { TPartnerDeps } from "../deps";

/** A client at or above this readiness score (grade B) is ready for an assistant rollout. */
export const AI_READY_SCORE = 80;

export const getAiPortfolioMeta = {
  openapi: {
    method: "GET",
    path: "/partner/exposure/ai",
    tags: ["partner"],
    summary: "Which managed clients are not ready for Copilot or Gemini",
    description: `Every managed client with consent, least ready first: its AI readiness score and grade (GET /partner/clients/{orgId}/exposure/ai for the detail) and its open internal_exposure findings. ready: score ${AI_READY_SCORE}+ (grade B or better). A client whose plan lacks business has available false and no score. notReady counts the available clients below ${AI_READY_SCORE}.`,
    protect: true,
  },
} satisfies TMeta;

const ZClient = z.object({
  orgId: z.string(),
  name: z.string(),
  available: z.boolean().describe("The client's plan includes AI exposure (business+)."),
  score: z.number().int().min(0).max(100).nullable(),
  grade: z.string().nullable(),
  ready: z.boolean().nullable().describe(`score ${AI_READY_SCORE} or more; null when not available.`),
  openFindings: z.number().int().nonnegative().nullable().describe("Open internal_exposure findings."),
});
export const ZGetAiPortfolioOutput = z.object({
  clients: z.array(ZClient),
  notReady: z.number().int().nonnegative(),
});

export const getAiPortfolio = (readiness: TPartnerDeps["aiReadiness"]) =>
  procedure({ auth: "partner", plan: "enterprise" })
    .meta(getAiPortfolioMeta)
    .input(z.strictObject({}).optional())
    .output(ZGetAiPortfolioOutput)
    .query(async ({ ctx }) => {
      const clients = await managedClients(ctx.db, ctx.principal.org.id);
      const rows = [];
      for (const c of clients) {
        if (!atLeast(c.plan, "business")) {
          rows.push({
            orgId: c.id,
            name: c.name,
            available: false,
            score: null,
            grade: null,
            ready: null,
            openFindings: null,
          });
          continue;
        }
        const r = await readiness(ctx.db, c.id);
        rows.push({ orgId: c.id, name: c.name, available: true, ...r, ready: r.score >= AI_READY_SCORE });
      }
      rows.sort(
        (a, b) =>
          (a.score ?? 101) - (b.score ?? 101) ||
          a.name.localeCompare(b.name) ||
          a.orgId.localeCompare(b.orgId),
      );
      return { clients: rows, notReady: rows.filter((r) => r.ready === false).length };
    });
