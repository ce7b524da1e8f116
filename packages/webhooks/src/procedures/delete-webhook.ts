import { procedure, scopeOf } from "@posture/platform";
import { deleteSubscription } from "../services/subscriptions";
import { deleteWebhookMeta, ZDeleteWebhookInput, ZDeleteWebhookOutput } from "./delete-webhook.types";

export const deleteWebhook = procedure({ auth: "session", role: "ADMIN" })
  .meta(deleteWebhookMeta)
  .input(ZDeleteWebhookInput)
  .output(ZDeleteWebhookOutput)
  .mutation(async ({ ctx, input }) =>
    deleteSubscription(ctx.db, { ...scopeOf(ctx.principal), id: input.id }),
  );
