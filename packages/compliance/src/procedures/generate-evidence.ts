import { procedure, scopeOf } from "@posture/platform";
import { requestEvidencePackage } from "../services/evidence-jobs";
import {
  generateEvidenceMeta,
  ZGenerateEvidenceInput,
  ZGenerateEvidenceOutput,
} from "./generate-evidence.types";

export const generateEvidence = procedure({ auth: "apiKey", plan: "business" })
  .meta(generateEvidenceMeta)
  .input(ZGenerateEvidenceInput)
  .output(ZGenerateEvidenceOutput)
  .mutation(({ ctx, input }) =>
    requestEvidencePackage(ctx.db, ctx.jobs, { ...scopeOf(ctx.principal), framework: input.framework }),
  );
