import { procedure } from "@posture/platform";
import { getEvidencePackage } from "../services/evidence-jobs";
import { getEvidenceMeta, ZGetEvidenceInput, ZGetEvidenceOutput } from "./get-evidence.types";

export const getEvidence = procedure({ auth: "apiKey", plan: "business" })
  .meta(getEvidenceMeta)
  .input(ZGetEvidenceInput)
  .output(ZGetEvidenceOutput)
  .query(({ ctx, input }) =>
    getEvidencePackage(ctx.db, { orgId: ctx.principal.org.id, jobId: input.jobId, format: input.format }),
  );
