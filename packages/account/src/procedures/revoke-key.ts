import { procedure } from "@posture/platform";
import { revokeKey as revokeKeyService } from "../services/api-keys";
import { revokeKeyMeta, ZRevokeKeyInput, ZRevokeKeyOutput } from "./revoke-key.types";

export const revokeKey = procedure({ auth: "session", feature: "apiAccess", role: "OWNER" })
  .meta(revokeKeyMeta)
  .input(ZRevokeKeyInput)
  .output(ZRevokeKeyOutput)
  .mutation(({ ctx, input }) =>
    revokeKeyService(ctx.db, {
      orgId: ctx.principal.org.id,
      keyId: input.id,
      actor: { userId: ctx.principal.userId, userEmail: ctx.principal.userEmail },
    }),
  );
