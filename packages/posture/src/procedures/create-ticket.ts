import { procedure, scopeOf } from "@posture/platform";
import { createTicketForFinding } from "../services/tickets";
import { createTicketMeta, ZCreateTicketInput, ZTicketOutput } from "./findings.types";

export const createTicket = procedure({ auth: "apiKey", feature: "ticketing" })
  .meta(createTicketMeta)
  .input(ZCreateTicketInput)
  .output(ZTicketOutput)
  .mutation(async ({ ctx, input }) => ({
    ticket: await createTicketForFinding(
      ctx.db,
      { ...scopeOf(ctx.principal), findingId: input.id },
      { runtime: ctx.runtime },
    ),
  }));
