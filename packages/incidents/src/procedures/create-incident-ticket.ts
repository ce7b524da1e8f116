import { procedure, scopeOf } from "@posture/platform";
import { createIncidentTicket as createIncidentTicketFor } from "../services/incident-ticket";
import { ZSubjectTicketOutput } from "@posture/ticketing";
import { createIncidentTicketMeta } from "./create-incident-ticket.types";
import { ZIncidentId } from "./incidents.types";

export const createIncidentTicket = procedure({ auth: "apiKey", plan: "business", feature: "ticketing" })
  .meta(createIncidentTicketMeta)
  .input(ZIncidentId)
  .output(ZSubjectTicketOutput)
  .mutation(async ({ ctx, input }) => ({
    ticket: await createIncidentTicketFor(
      ctx.db,
      { ...scopeOf(ctx.principal), id: input.id },
      { runtime: ctx.runtime },
    ),
  }));
