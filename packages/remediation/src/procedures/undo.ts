import { procedure, scopeOf } from "@posture/platform";
import { requestUndo } from "../services/undo";
import { loadRemediation } from "../services/view";
import { ZRemediationIdInput, ZRemediation } from "./remediation.types";

export const undoRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "POST",
      path: "/remediations/{id}/undo",
      tags: ["remediations"],
      summary: "Undo an applied remediation (a job)",
      successDescription: "Accepted: REVERTING, the undo job is queued",
      description:
        "202: APPLIED or PARTIAL → REVERTING, and a background job restores each reversible applied step from its stored pre-image, last step first; the remediation ends REVERTED. Irreversible steps (a revoked Google OAuth token) and restores the source refuses stay APPLIED and are counted in `remediation.reverted`'s `notReverted`. Findings the reverted steps had resolved re-open, the store and the score follow. Only within 30 days of the apply's end (`undoUntil`); after it, or from any other status, 409 invalid_transition. Audited (REMEDIATION_UNDO_STARTED, REMEDIATION_REVERTED).",
    },
    successStatus: 202,
    errors: ["invalid_transition"],
  })
  .input(ZRemediationIdInput)
  .output(ZRemediation)
  .mutation(async ({ ctx, input }) => {
    const scope = scopeOf(ctx.principal);
    await requestUndo(ctx.db, { ...scope, id: input.id }, { jobs: ctx.jobs });
    return loadRemediation(ctx.db, { orgId: scope.orgId, id: input.id });
  });
