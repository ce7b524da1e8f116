import { procedure } from "@posture/platform";
import { listPlans, targetOrg } from "../services/plan";
import { ZListRemediationsInput, ZListRemediationsOutput } from "./remediation.types";
import { planScope } from "./scope";

export const listRemediations = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta({
    openapi: {
      method: "GET",
      path: "/remediations",
      tags: ["remediations"],
      summary: "List remediations",
      description:
        "Newest first, offset-paged (`limit` 50 by default, at most 500; `offset`; `total`, `nextOffset`), optionally of one `status`. A partner passes `organizationId` for a client it manages (404 otherwise).",
    },
    errors: ["not_found"],
  })
  .input(ZListRemediationsInput)
  .output(ZListRemediationsOutput)
  .query(async ({ ctx, input }) => {
    const orgId = await targetOrg(ctx.db, planScope(ctx.principal), input.organizationId);
    return listPlans(ctx.db, { orgId, limit: input.limit, offset: input.offset, status: input.status });
  });
