import { procedure } from "@posture/platform";
import { createConnector as create } from "../services/connectors";
import { createConnectorMeta, ZConnector, ZCreateConnectorInput } from "./connectors.types";

export const createConnector = procedure({ auth: "session", role: "ADMIN" })
  .meta(createConnectorMeta)
  .input(ZCreateConnectorInput)
  .output(ZConnector)
  .mutation(async ({ ctx, input }) => {
    const connector = await create(ctx.db, ctx.runtime.encryptionKey, ctx.principal, input);
    ctx.response.status = 201;
    return connector;
  });
