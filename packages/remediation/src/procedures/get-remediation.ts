import { procedure } from "@posture/platform";
import { getPlan } from "../services/approve";
import { ZRemediation, ZRemediationIdInput } from "./remediation.types";
import { planScope } from "./scope";

export const getRemediation = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "GET",
      path: "/remediations/{id}",
      tags: ["remediations"],
      summary: "A remediation, step by step",
      description:
        "The plan and each step's `status` (PENDING, APPLIED, ALREADY_GONE, FAILED, REVERTED) with the source's error when it refused. 404 for another organization's id (a partner sees its managed clients').",
    },
  })
  .input(ZRemediationIdInput)
  .output(ZRemediation)
  .query(({ ctx, input }) => getPlan(ctx.db, planScope(ctx.principal), input.id));
