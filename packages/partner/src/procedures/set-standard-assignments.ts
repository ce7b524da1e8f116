import { procedure, scopeOf } from "@posture/platform";
import { queuePartnerDrift } from "../services/drift";
import { setAssignments } from "../services/standards";
import { setAssignmentsMeta, ZSetAssignmentsInput, ZStandard } from "./standard.types";

export const setStandardAssignments = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(setAssignmentsMeta)
  .input(ZSetAssignmentsInput)
  .output(ZStandard)
  .mutation(async ({ ctx, input }) => {
    const out = await setAssignments(ctx.db, { ...scopeOf(ctx.principal), ...input });
    await queuePartnerDrift(ctx.jobs, ctx.principal.org.id);
    return out;
  });
