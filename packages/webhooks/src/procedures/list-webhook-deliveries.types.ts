import { z } from "zod";
import { offsetInput, type TMeta, ZOffsetMeta, ZTimestamp } from "@posture/platform";
import { ZWebhookIdInput } from "./webhook.types";

export const listWebhookDeliveriesMeta = {
  openapi: {
    method: "GET",
    path: "/webhooks/{id}/deliveries",
    tags: ["webhooks"],
    summary: "Delivery log of a subscription",
    description:
      "Newest first. status: pending (not tried yet), failed (last attempt failed, next at nextAttemptAt), " +
      "delivered, or abandoned (retries exhausted, 410 Gone, or subscription disabled).",
    protect: true,
  },
} satisfies TMeta;

export const ZListWebhookDeliveriesInput = ZWebhookIdInput.extend(offsetInput(50, 200).shape);

export const ZDelivery = z.object({
  id: z.string(),
  eventId: z.string(),
  event: z.string(),
  status: z.enum(["pending", "delivered", "failed", "abandoned"]),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: ZTimestamp.nullable(),
  deliveredAt: ZTimestamp.nullable(),
  createdAt: ZTimestamp,
});

export const ZListWebhookDeliveriesOutput = ZOffsetMeta.extend({ rows: z.array(ZDelivery) });
