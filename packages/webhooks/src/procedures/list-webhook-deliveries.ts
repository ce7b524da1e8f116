import { procedure } from "@posture/platform";
import { listDeliveries } from "../services/deliveries";
import {
  listWebhookDeliveriesMeta,
  ZListWebhookDeliveriesInput,
  ZListWebhookDeliveriesOutput,
} from "./list-webhook-deliveries.types";

export const listWebhookDeliveries = procedure({ auth: "session", role: "ADMIN" })
  .meta(listWebhookDeliveriesMeta)
  .input(ZListWebhookDeliveriesInput)
  .output(ZListWebhookDeliveriesOutput)
  .query(async ({ ctx, input }) =>
    listDeliveries(ctx.db, {
      orgId: ctx.principal.org.id,
      subscriptionId: input.id,
      limit: input.limit,
      offset: input.offset,
    }),
  );
