import type { TMeta } from "@posture/platform";
import { z } from "zod";

export const getMyScoreMeta = {
  openapi: {
    method: "GET",
    path: "/awareness/me",
    tags: ["awareness"],
    summary: "The caller's own awareness score",
    description:
      "Any role; an API key acts as the user who created it. factors always add up to score (a `base` of 100, deductions, `quick_fixes` credit, and `floor`/`ceiling` when the sum would leave 0–100). nudges name the next concrete action, most important first.",
  },
} satisfies TMeta;

export const ZGetMyScoreOutput = z.object({
  userId: z.string(),
  email: z.string(),
  score: z.number().int().min(0).max(100),
  rank: z.number().int().min(1),
  factors: z.array(z.object({ key: z.string(), delta: z.number().int() })),
  badges: z.array(z.string()),
  nudges: z.array(z.string()),
});
