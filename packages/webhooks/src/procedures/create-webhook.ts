import { procedure, scopeOf } from "@posture/platform";
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
        ...scopeOf(ctx.principal),
        url: input.url,
        events: input.events,
        includeClients: input.includeClients,
        isPartner: ctx.principal.org.isPartner,
      },
      {
        encryptionKey: ctx.runtime.encryptionKey,
        allowPrivateTargets: ctx.runtime.webhookAllowPrivateTargets,
        resolve: ctx.runtime.outboundResolver,
      },
    ),
  );
