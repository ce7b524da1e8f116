import { AppError, evidenceSigner, publicProcedure } from "@posture/platform";
import {
  getEvidenceKeysMeta,
  ZGetEvidenceKeysInput,
  ZGetEvidenceKeysOutput,
} from "./list-evidence-keys.types";

export const getEvidenceKeys = publicProcedure
  .meta(getEvidenceKeysMeta)
  .input(ZGetEvidenceKeysInput)
  .output(ZGetEvidenceKeysOutput)
  .query(() => {
    const signer = evidenceSigner();
    if (!signer) throw new AppError("service_unavailable", "The evidence signing key is not loaded");
    return signer.jwks;
  });
