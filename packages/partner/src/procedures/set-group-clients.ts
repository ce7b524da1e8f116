import { procedure, scopeOf } from "@posture/platform";
import { queuePartnerDrift } from "../services/drift";
import { setGroupClients as setClients } from "../services/groups";
import { setGroupClientsMeta, ZGroupDetail, ZSetGroupClientsInput } from "./group.types";

export const setGroupClients = procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
  .meta(setGroupClientsMeta)
  .input(ZSetGroupClientsInput)
  .output(ZGroupDetail)
  .mutation(async ({ ctx, input }) => {
    const out = await setClients(ctx.db, { ...scopeOf(ctx.principal), ...input });
    await queuePartnerDrift(ctx.jobs, ctx.principal.org.id);
    return out;
  });
