import { procedure, scopeOf } from "@posture/platform";
import { createApiKey } from "../services/api-keys";
import { createKeyMeta, ZCreateKeyInput, ZCreateKeyOutput } from "./create-key.types";

export const createKey = procedure({ auth: "session", feature: "apiAccess", role: "OWNER" })
  .meta(createKeyMeta)
  .input(ZCreateKeyInput)
  .output(ZCreateKeyOutput)
  .mutation(({ ctx, input }) =>
    createApiKey(ctx.db, {
      ...scopeOf(ctx.principal),
      name: input.name,
      expiresInDays: input.expiresInDays,
      scopes: input.scopes,
    }),
  );
