import { procedure, scopeOf } from "@posture/platform";
import { redeliver } from "../services/deliveries";
import {
  redeliverWebhookMeta,
  ZRedeliverWebhookInput,
  ZRedeliverWebhookOutput,
} from "./redeliver-webhook.types";

export const redeliverWebhook = procedure({ auth: "session", role: "ADMIN" })
  .meta(redeliverWebhookMeta)
  .input(ZRedeliverWebhookInput)
  .output(ZRedeliverWebhookOutput)
  .mutation(({ ctx, input }) =>
    redeliver(ctx.db, ctx.jobs, {
      ...scopeOf(ctx.principal),
      subscriptionId: input.id,
      deliveryId: input.deliveryId,
    }),
  );
