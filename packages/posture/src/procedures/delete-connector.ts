import { procedure, scopeOf } from "@posture/platform";
import { deleteConnector as remove } from "../services/connectors";
import { deleteConnectorMeta, ZConnectorIdInput, ZDeleteConnectorOutput } from "./connectors.types";

export const deleteConnector = procedure({ auth: "session", role: "ADMIN" })
  .meta(deleteConnectorMeta)
  .input(ZConnectorIdInput)
  .output(ZDeleteConnectorOutput)
  .mutation(async ({ ctx, input }) => {
    await remove(ctx.db, { ...scopeOf(ctx.principal), id: input.id });
    return { disconnected: true as const };
  });
