import { z } from "zod";
import type { TMeta } from "@posture/platform";
import { ZWebhookIdInput } from "./webhook.types";

export const deleteWebhookMeta = {
  openapi: {
    method: "DELETE",
    path: "/webhooks/{id}",
    tags: ["webhooks"],
    summary: "Delete a webhook subscription",
    description: "Removes the subscription and its delivery log; queued deliveries are not sent.",
    protect: true,
  },
} satisfies TMeta;

export const ZDeleteWebhookInput = ZWebhookIdInput;

export const ZDeleteWebhookOutput = z.object({ deleted: z.literal(true) });
