import { procedure, scopeOf } from "@posture/platform";
import { revokeKey as revokeKeyService } from "../services/api-keys";
import { revokeKeyMeta, ZRevokeKeyInput, ZRevokeKeyOutput } from "./delete-key.types";

export const revokeKey = procedure({ auth: "session", feature: "apiAccess", role: "OWNER" })
  .meta(revokeKeyMeta)
  .input(ZRevokeKeyInput)
  .output(ZRevokeKeyOutput)
  .mutation(({ ctx, input }) => revokeKeyService(ctx.db, { ...scopeOf(ctx.principal), keyId: input.id }));
