import { procedure } from "@posture/platform";
import { z } from "zod";
import { leaderboard } from "../services/awareness";
import { listScoresMeta, ZListScoresOutput } from "./list-scores.types";

export const listScores = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta(listScoresMeta)
  .input(z.strictObject({}))
  .output(ZListScoresOutput)
  .query(async ({ ctx }) => ({
    scores: (await leaderboard(ctx.db, { orgId: ctx.principal.org.id })).map((p) => ({
      userId: p.email,
      email: p.email,
      score: p.score,
      rank: p.rank,
      badges: p.badges,
    })),
  }));
