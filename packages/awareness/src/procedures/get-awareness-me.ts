import { procedure } from "@posture/platform";
import { z } from "zod";
import { myAwareness } from "../services/awareness";
import { getMyScoreMeta, ZGetMyScoreOutput } from "./get-awareness-me.types";

export const getMyScore = procedure({ auth: "apiKey" })
  .meta(getMyScoreMeta)
  .input(z.strictObject({}))
  .output(ZGetMyScoreOutput)
  .query(async ({ ctx }) => {
    const me = await myAwareness(ctx.db, { orgId: ctx.principal.org.id, email: ctx.principal.userEmail });
    return { userId: me.email, ...me };
  });
