import { procedure } from "@posture/platform";
import { cancelPlan } from "../services/approve";
import { ZRemediation, ZRemediationIdInput } from "./remediation.types";
import { planScope } from "./scope";

export const cancelRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "POST",
      path: "/remediations/{id}/cancel",
      tags: ["remediations"],
      summary: "Cancel a planned remediation",
      description:
        "PLANNED → CANCELLED; any other status is 409 `invalid_transition` (an approved plan is applied, or left).",
    },
    errors: ["invalid_transition"],
  })
  .input(ZRemediationIdInput)
  .output(ZRemediation)
  .mutation(({ ctx, input }) => cancelPlan(ctx.db, planScope(ctx.principal), input.id));
