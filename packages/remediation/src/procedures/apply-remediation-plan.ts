import { procedure, scopeOf } from "@posture/platform";
import { requestApply } from "../services/apply";
import { loadRemediation } from "../services/view";
import { ZRemediationIdInput, ZRemediation } from "./remediation.types";

export const applyRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "POST",
      path: "/remediations/{id}/apply",
      tags: ["remediations"],
      summary: "Apply an approved remediation (a job)",
      successDescription: "Accepted: APPLYING, the apply job is queued",
      description:
        "202: APPROVED → APPLYING, and a background job makes each step's one change at the source, in order, at a bounded rate per connector (a source's 429 and Retry-After are waited out). The remediation ends APPLIED (every step applied or found already gone), PARTIAL (some failed, with the source's status, code and message) or FAILED (none done), and may be undone for 30 days (`undoUntil`). Findings a step fixes resolve at once (`finding.resolved`), the resource store and the score follow. Any other status, or a dry run, is 409 invalid_transition; a connector whose write access was turned off since the plan is 409 conflict. An Idempotency-Key replays the first answer. Audited (REMEDIATION_APPLY_STARTED, REMEDIATION_APPLIED / REMEDIATION_FAILED); events `remediation.applied` / `remediation.failed`.",
    },
    successStatus: 202,
    errors: ["invalid_transition", "conflict"],
  })
  .input(ZRemediationIdInput)
  .output(ZRemediation)
  .mutation(async ({ ctx, input }) => {
    const scope = scopeOf(ctx.principal);
    await requestApply(
      ctx.db,
      { ...scope, id: input.id, applyKey: ctx.idempotencyKey ?? null },
      { jobs: ctx.jobs },
    );
    return loadRemediation(ctx.db, { orgId: scope.orgId, id: input.id });
  });
