import { procedure } from "@posture/platform";
import { z } from "zod";
import { computeOrgPosture } from "../services/posture";
import { getPostureBreakdownMeta, ZPostureBreakdownOutput } from "./posture.types";

export const getPostureBreakdown = procedure({ auth: "session" })
  .meta(getPostureBreakdownMeta)
  .input(z.void())
  .output(ZPostureBreakdownOutput)
  .query(({ ctx }) => computeOrgPosture(ctx.db, { orgId: ctx.principal.org.id }));
