import { procedure, scopeOf } from "@posture/platform";
import { sendTestDelivery } from "../services/test-delivery";
import { testWebhookMeta, ZTestWebhookInput, ZTestWebhookOutput } from "./test-webhook.types";

export const testWebhook = procedure({ auth: "session", role: "ADMIN" })
  .meta(testWebhookMeta)
  .input(ZTestWebhookInput)
  .output(ZTestWebhookOutput)
  .mutation(({ ctx, input }) =>
    sendTestDelivery(ctx.db, ctx.jobs, { ...scopeOf(ctx.principal), id: input.id }),
  );
