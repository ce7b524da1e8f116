import { z } from "zod";
import type { TMeta } from "@posture/platform";
import { ZDelivery } from "./list-webhook-deliveries.types";
import { ZWebhookIdInput } from "./webhook.types";

export const redeliverWebhookMeta = {
  openapi: {
    method: "POST",
    path: "/webhooks/{id}/deliveries/{deliveryId}/redeliver",
    tags: ["webhooks"],
    summary: "Send a delivery again",
    description:
      "Queues a new attempt of the delivery: the same event id and body, freshly signed, logged as a manual " +
      "attempt in the delivery's history. Works whatever the delivery's state (delivered, failed, abandoned); " +
      "if the attempt fails, the usual back-off continues from the delivery's attempt count. Asking again " +
      "while a redelivery is queued changes nothing. 409 `conflict` while an attempt is being sent or when the " +
      "subscription is disabled. Audited (WEBHOOK_REDELIVERED).",
    protect: true,
    successDescription: "Accepted: the attempt is queued",
  },
  successStatus: 202,
} satisfies TMeta;

export const ZRedeliverWebhookInput = ZWebhookIdInput.extend({ deliveryId: z.string().min(1).max(100) });

export const ZRedeliverWebhookOutput = ZDelivery;
