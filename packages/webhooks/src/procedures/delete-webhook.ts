import { procedure } from "@posture/platform";
import { deleteSubscription } from "../services/subscriptions";
import { deleteWebhookMeta, ZDeleteWebhookInput, ZDeleteWebhookOutput } from "./delete-webhook.types";

export const deleteWebhook = procedure({ auth: "session", role: "ADMIN" })
  .meta(deleteWebhookMeta)
  .input(ZDeleteWebhookInput)
  .output(ZDeleteWebhookOutput)
  .mutation(async ({ ctx, input }) =>
    deleteSubscription(ctx.db, {
      orgId: ctx.principal.org.id,
      id: input.id,
      actor: { userId: ctx.principal.userId, userEmail: ctx.principal.userEmail },
    }),
  );
