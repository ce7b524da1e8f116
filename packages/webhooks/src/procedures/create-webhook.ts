import { procedure } from "@posture/platform";
import { createSubscription } from "../services/subscriptions";
import { createWebhookMeta, ZCreateWebhookInput, ZCreateWebhookOutput } from "./create-webhook.types";

export const createWebhook = procedure({ auth: "session", role: "ADMIN" })
  .meta(createWebhookMeta)
  .input(ZCreateWebhookInput)
  .output(ZCreateWebhookOutput)
  .mutation(({ ctx, input }) =>
    createSubscription(
      ctx.db,
      {
        orgId: ctx.principal.org.id,
        url: input.url,
        events: input.events,
        actor: { userId: ctx.principal.userId, userEmail: ctx.principal.userEmail },
      },
      {
        encryptionKey: ctx.runtime.encryptionKey,
        allowPrivateTargets: ctx.runtime.webhookAllowPrivateTargets,
      },
    ),
  );
