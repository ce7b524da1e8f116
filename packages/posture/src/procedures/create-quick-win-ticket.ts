import { procedure, scopeOf } from "@posture/platform";
import { createQuickWinTicket as createQuickWinTicketFor } from "../services/quick-win-ticket";
import { ZSubjectTicketOutput } from "@posture/ticketing";
import { createQuickWinTicketMeta, ZCreateQuickWinTicketInput } from "./create-quick-win-ticket.types";

export const createQuickWinTicket = procedure({ auth: "apiKey", feature: "ticketing" })
  .meta(createQuickWinTicketMeta)
  .input(ZCreateQuickWinTicketInput)
  .output(ZSubjectTicketOutput)
  .mutation(async ({ ctx, input }) => ({
    ticket: await createQuickWinTicketFor(
      ctx.db,
      { ...scopeOf(ctx.principal), group: input.group },
      { runtime: ctx.runtime },
    ),
  }));
