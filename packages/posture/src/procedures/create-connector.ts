import { procedure } from "@posture/platform";
import { createConnector as create } from "../services/connectors";
import { createConnectorMeta, ZConnector, ZCreateConnectorInput } from "./connectors.types";

export const createConnector = procedure({ auth: "session", role: "ADMIN" })
  .meta(createConnectorMeta)
  .input(ZCreateConnectorInput)
  .output(ZConnector)
  .mutation(({ ctx, input }) => create(ctx.db, ctx.runtime.encryptionKey, ctx.principal, input));
