import { procedure, scopeOf } from "@posture/platform";
import { createIncident as create, showContext, toDetail } from "../services/incidents";
import { createIncidentMeta, ZCreateIncidentInput } from "./create-incident.types";
import { ZIncidentDetail } from "./incidents.types";

export const createIncident = procedure({ auth: "apiKey", plan: "business", role: "ADMIN" })
  .meta(createIncidentMeta)
  .input(ZCreateIncidentInput)
  .output(ZIncidentDetail)
  .mutation(async ({ ctx, input }) => {
    const row = await create(
      ctx.db,
      scopeOf(ctx.principal),
      {
        title: input.title,
        priority: input.priority,
        findingIds: input.findingIds,
        ...(input.assignee !== undefined ? { assignee: input.assignee } : {}),
        ...(input.summary !== undefined ? { summary: input.summary } : {}),
      },
      { jobs: ctx.jobs, publicUrl: ctx.runtime.publicUrl },
    );
    return toDetail(row, await showContext(ctx.db, { orgId: row.orgId }));
  });
