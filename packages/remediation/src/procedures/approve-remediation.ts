import { procedure } from "@posture/platform";
import { approvePlan } from "../services/approve";
import { ZRemediation, ZRemediationIdInput } from "./remediation.types";
import { planScope } from "./scope";

export const approveRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "POST",
      path: "/remediations/{id}/approve",
      tags: ["remediations"],
      summary: "Approve a planned remediation",
      description:
        "PLANNED → APPROVED, by an ADMIN or OWNER of the organization (or of its managing partner when the organization's `partnerMayApprove` is on; otherwise 403). With four eyes on (`fourEyes` of /remediation-settings) the planner cannot approve their own plan: 409 `self_approval` (an API key acts as the user who created it). Any other status, or a dry run: 409 `invalid_transition`.",
    },
    errors: ["invalid_transition", "self_approval"],
  })
  .input(ZRemediationIdInput)
  .output(ZRemediation)
  .mutation(({ ctx, input }) => approvePlan(ctx.db, planScope(ctx.principal), input.id));
