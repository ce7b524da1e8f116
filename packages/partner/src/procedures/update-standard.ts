import { procedure, scopeOf } from "@posture/platform";
import { queuePartnerDrift } from "../services/drift";
import { updateStandard as update } from "../services/standards";
import { updateStandardMeta, ZStandard, ZUpdateStandardInput } from "./standard.types";

export const updateStandard = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(updateStandardMeta)
  .input(ZUpdateStandardInput)
  .output(ZStandard)
  .mutation(async ({ ctx, input }) => {
    const out = await update(ctx.db, { ...scopeOf(ctx.principal), ...input });
    await queuePartnerDrift(ctx.jobs, ctx.principal.org.id);
    return out;
  });
