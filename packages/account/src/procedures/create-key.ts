import { procedure } from "@posture/platform";
import { createApiKeyFor } from "../services/api-keys";
import { createKeyMeta, ZCreateKeyInput, ZCreateKeyOutput } from "./create-key.types";

export const createKey = procedure({ auth: "session", feature: "apiAccess", role: "OWNER" })
  .meta(createKeyMeta)
  .input(ZCreateKeyInput)
  .output(ZCreateKeyOutput)
  .mutation(({ ctx, input }) =>
    createApiKeyFor(ctx.db, {
      orgId: ctx.principal.org.id,
      userId: ctx.principal.userId,
      name: input.name,
      expiresInDays: input.expiresInDays,
    }),
  );
