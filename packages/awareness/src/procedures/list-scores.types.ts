import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const listScoresMeta = {
  openapi: {
    method: "GET",
    path: "/awareness/scores",
    tags: ["awareness"],
    summary: "Security-awareness leaderboard",
    description:
      "One entry per person, rank 1 the highest score; equal scores share a rank and the next rank skips (1, 2, 2, 4); within a rank, by e-mail. Scores are 0–100 from the person's own behaviour: MFA, public links and external shares they own and how fast they fix them, behaviour anomalies, dormant access. Badges: mfa_enabled, no_public_links, clean_sharing, quick_fixer, steady_behaviour, and gold/silver/bronze for ranks 1–3.",
  },
} satisfies TMeta;

export const ZListScoresOutput = z.object({
  scores: z.array(
    z.object({
      userId: z.string(),
      email: z.string(),
      score: z.number().int().min(0).max(100),
      rank: z.number().int().min(1),
      badges: z.array(z.string()),
    }),
  ),
});
