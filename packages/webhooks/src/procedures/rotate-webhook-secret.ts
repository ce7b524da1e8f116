import { procedure, scopeOf } from "@posture/platform";
import { rotateSecret } from "../services/rotate-secret";
import {
  rotateWebhookSecretMeta,
  ZRotateWebhookSecretInput,
  ZRotateWebhookSecretOutput,
} from "./rotate-webhook-secret.types";

export const rotateWebhookSecret = procedure({ auth: "session", role: "ADMIN" })
  .meta(rotateWebhookSecretMeta)
  .input(ZRotateWebhookSecretInput)
  .output(ZRotateWebhookSecretOutput)
  .mutation(({ ctx, input }) =>
    rotateSecret(
      ctx.db,
      { ...scopeOf(ctx.principal), id: input.id, overlapSeconds: input.overlapSeconds },
      { encryptionKey: ctx.runtime.encryptionKey },
    ),
  );
