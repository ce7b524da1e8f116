import { AppError, procedure } from "@posture/platform";
import { listKeys as listKeysService } from "../services/api-keys";
import { getCurrentKeyMeta, ZCurrentKeyOutput, ZGetCurrentKeyInput } from "./get-current-key.types";

export const getCurrentKey = procedure({ auth: "apiKey", feature: "apiAccess" })
  .meta(getCurrentKeyMeta)
  .input(ZGetCurrentKeyInput)
  .output(ZCurrentKeyOutput)
  .query(async ({ ctx }) => {
    const p = ctx.principal;
    const key =
      p.kind === "api_key"
        ? (await listKeysService(ctx.db, { orgId: p.org.id })).find((k) => k.id === p.credentialId)
        : undefined;
    if (!key) throw new AppError("not_found", "This request is not made with an API key");
    return key;
  });
