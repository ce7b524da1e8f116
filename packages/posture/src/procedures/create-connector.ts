import { procedure, scopeOf } from "@posture/platform";
import { createConnector as create } from "../services/connectors";
import { createConnectorMeta, ZConnector, ZCreateConnectorInput } from "./connectors.types";

export const createConnector = procedure({ auth: "session", role: "ADMIN" })
  .meta(createConnectorMeta)
  .input(ZCreateConnectorInput)
  .output(ZConnector)
  .mutation(({ ctx, input }) =>
    create(
      ctx.db,
      { ...scopeOf(ctx.principal), plan: ctx.principal.org.plan, ...input },
      {
        encryptionKey: ctx.runtime.encryptionKey,
        ...(ctx.runtime.sourceEndpoints ? { sourceEndpoints: ctx.runtime.sourceEndpoints } : {}),
      },
    ),
  );
