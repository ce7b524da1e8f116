import { procedure, scopeOf } from "@posture/platform";
import { simulatePosture as simulate } from "../services/simulate";
import { ZSimulateInput, ZSimulateOutput } from "./remediation.types";

export const simulatePosture = procedure({ auth: "apiKey", plan: "business" })
  .meta({
    openapi: {
      method: "POST",
      path: "/posture/simulate",
      tags: ["remediations"],
      summary: "What-if: the score and controls after fixing",
      description:
        "The posture score and grade, and the compliance controls whose status would change, if these findings were resolved (`findingIds`, fixable at the source or not), these agents' grants revoked (`agentIds`: their app findings resolve) and these domains trusted (`trustedDomains`: external shares re-rated as the rule engine rates them). Changes nothing; any role. For the findings a plan fixes, the same numbers as the plan's `predicted`.",
    },
    errors: ["not_found"],
  })
  .input(ZSimulateInput)
  .output(ZSimulateOutput)
  .mutation(({ ctx, input }) => simulate(ctx.db, { orgId: scopeOf(ctx.principal).orgId, ...input }));
