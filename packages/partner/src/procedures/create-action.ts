import { procedure, scopeOf } from "@posture/platform";
import type { TPartnerDeps } from "../deps";
import { createAction } from "../services/actions";
import { ZAction } from "./action.types";
import { createActionMeta, ZCreateActionInput } from "./create-action.types";

export const createActionProcedure = (deps: TPartnerDeps) =>
  procedure({ auth: "partner", plan: "enterprise", role: "ADMIN" })
    .meta(createActionMeta)
    .input(ZCreateActionInput)
    .output(ZAction)
    .mutation(({ ctx, input }) => {
      const { orgId, actor } = scopeOf(ctx.principal);
      return createAction(
        ctx.db,
        { partnerOrgId: orgId, actor, ...input },
        { planRemediation: deps.planRemediation, jobs: ctx.jobs, publicUrl: ctx.runtime.publicUrl },
      );
    });
