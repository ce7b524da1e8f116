import { procedure, scopeOf } from "@posture/platform";
import { ZTicketingConfigInput } from "@posture/ticketing";
import { configureTicketing as configure } from "../services/tickets";
import { configureTicketingMeta, ZTicketingConfigOutput } from "./findings.types";

export const configureTicketing = procedure({ auth: "session", role: "ADMIN", feature: "ticketing" })
  .meta(configureTicketingMeta)
  .input(ZTicketingConfigInput)
  .output(ZTicketingConfigOutput)
  .mutation(({ ctx, input }) => configure(ctx.db, { ...scopeOf(ctx.principal), ...input }, ctx.runtime));
