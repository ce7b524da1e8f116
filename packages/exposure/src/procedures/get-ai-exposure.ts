import { procedure } from "@posture/platform";
import { z } from "zod";
import { getAiExposure, type TPredictPosture } from "../services/ai-exposure";
import { getAiExposureMeta, ZGetAiExposureOutput } from "./exposure.types";

export const getAiExposureProcedure = (deps: { predictPosture?: TPredictPosture }) =>
  procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
    .meta(getAiExposureMeta)
    .input(z.void())
    .output(ZGetAiExposureOutput)
    .query(({ ctx }) => getAiExposure(ctx.db, { orgId: ctx.principal.org.id }, deps));
