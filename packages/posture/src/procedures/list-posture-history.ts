import { procedure } from "@posture/platform";
import { z } from "zod";
import { getPostureHistory as history } from "../services/posture";
import { getPostureHistoryMeta, ZPostureHistoryOutput } from "./posture.types";

export const getPostureHistory = procedure({ auth: "session" })
  .meta(getPostureHistoryMeta)
  .input(z.void())
  .output(ZPostureHistoryOutput)
  .query(async ({ ctx }) => ({ history: await history(ctx.db, { orgId: ctx.principal.org.id }) }));
