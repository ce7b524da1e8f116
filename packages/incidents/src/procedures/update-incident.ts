import { procedure, scopeOf } from "@posture/platform";
import { showContext, toDetail, updateIncident as update, type TIncidentChange } from "../services/incidents";
import { ZIncidentDetail } from "./incidents.types";
import { updateIncidentMeta, ZUpdateIncidentInput } from "./update-incident.types";

export const updateIncident = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta(updateIncidentMeta)
  .input(ZUpdateIncidentInput)
  .output(ZIncidentDetail)
  .mutation(async ({ ctx, input }) => {
    const { id, ...rest } = input;
    const change = Object.fromEntries(
      Object.entries(rest).filter(([, v]) => v !== undefined),
    ) as TIncidentChange;
    const result = await update(
      ctx.db,
      scopeOf(ctx.principal),
      { id, ...change },
      { jobs: ctx.jobs, publicUrl: ctx.runtime.publicUrl },
    );
    return toDetail(result.row, await showContext(ctx.db, { orgId: result.row.orgId }));
  });
