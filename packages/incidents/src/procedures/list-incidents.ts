import { procedure } from "@posture/platform";
import { listIncidents as list } from "../services/incidents";
import { listIncidentsMeta, ZListIncidentsInput, ZListIncidentsOutput } from "./list-incidents.types";

export const listIncidents = procedure({ auth: "apiKey", plan: "business" })
  .meta(listIncidentsMeta)
  .input(ZListIncidentsInput)
  .output(ZListIncidentsOutput)
  .query(async ({ ctx, input }) => ({
    incidents: await list(ctx.db, {
      orgId: ctx.principal.org.id,
      ...(input.status ? { status: input.status } : {}),
      ...(input.priority ? { priority: input.priority } : {}),
    }),
  }));
