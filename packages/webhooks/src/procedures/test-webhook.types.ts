import type { TMeta } from "@posture/platform";
import { ZDelivery } from "./list-webhook-deliveries.types";
import { ZWebhookIdInput } from "./webhook.types";

export const testWebhookMeta = {
  openapi: {
    method: "POST",
    path: "/webhooks/{id}/test",
    tags: ["webhooks"],
    summary: "Send a test delivery",
    description:
      "Sends a signed `webhook.test` event to this subscription only (whatever events it lists; never to the " +
      "organization's other subscriptions), through the normal delivery path: the same headers and signatures " +
      "(both secrets during a rotation's overlap), retries and delivery log. Answers with the queued delivery; " +
      "follow it in GET /webhooks/{id}/deliveries. 409 `conflict` for a disabled subscription. Audited " +
      "(WEBHOOK_TESTED).",
    protect: true,
    successDescription: "Accepted: the test delivery is queued",
  },
  successStatus: 202,
} satisfies TMeta;

export const ZTestWebhookInput = ZWebhookIdInput;
export const ZTestWebhookOutput = ZDelivery;
