import { procedure, scopeOf } from "@posture/platform";
import { requestUndo } from "../services/undo-request";
import { loadRemediation } from "../services/view";
import { ZRemediationIdInput, ZRemediation } from "./remediation.types";

export const undoRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "POST",
      path: "/remediations/{id}/undo",
      tags: ["remediations"],
      summary: "Undo an applied remediation (a job)",
      successDescription:
        "Accepted: REVERTING, the undo job is queued; or, with four eyes on, the first person's request recorded (`undoRequest`, the status unchanged)",
      description:
        "202: APPLIED or PARTIAL → REVERTING, and a background job restores each reversible applied step from its stored pre-image, last step first; the remediation ends REVERTED. Irreversible steps (a revoked Google OAuth token) and restores the source refuses stay APPLIED and are counted in `remediation.reverted`'s `notReverted`; an undo that put nothing back ends APPLIED (or PARTIAL) again, with `remediation.undo.failed`. Findings the reverted steps had resolved re-open, the store and the score follow. With four eyes on (`fourEyes` of /remediation-settings) an undo takes two different people, whatever their roles: the first call records the request (`undoRequest.requestedBy`, the status unchanged, `remediation.undo.requested`), the same person again is 409 `self_approval` (an API key acts as the user who created it), and a different ADMIN or OWNER starts it (`undoRequest.confirmedBy`). Every start emits `remediation.reverting`. 409 `nothing_to_undo` when none of the applied steps can be put back (nothing moves). Only within 30 days of the apply's end (`undoUntil`); after it, or from any other status, 409 invalid_transition. Audited (REMEDIATION_UNDO_REQUESTED, REMEDIATION_UNDO_STARTED, REMEDIATION_REVERTED, REMEDIATION_UNDO_FAILED).",
    },
    successStatus: 202,
    errors: ["invalid_transition", "nothing_to_undo", "self_approval"],
  })
  .input(ZRemediationIdInput)
  .output(ZRemediation)
  .mutation(async ({ ctx, input }) => {
    const scope = scopeOf(ctx.principal);
    await requestUndo(
      ctx.db,
      { ...scope, role: ctx.principal.role, id: input.id },
      { jobs: ctx.jobs, publicUrl: ctx.runtime.publicUrl },
    );
    return loadRemediation(ctx.db, { orgId: scope.orgId, id: input.id });
  });
