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
      "Newest first. status: pending (not tried yet, or a redelivery is queued), failed (last attempt failed, " +
      "next at nextAttemptAt), delivered, or abandoned (retries exhausted, 410 Gone, or subscription disabled). " +
      "`history` lists each attempt: when, how long, the receiver's status code, the error.",
    protect: true,
  },
} satisfies TMeta;

export const ZListWebhookDeliveriesInput = ZWebhookIdInput.extend(offsetInput(50, 200).shape);

export const ZDeliveryAttempt = z.object({
  attempt: z.number().int().nonnegative().describe("1 for the first attempt"),
  manual: z.boolean().describe("sent by POST …/redeliver rather than by the retry schedule"),
  at: ZTimestamp.describe("when the attempt started"),
  durationMs: z.number().int().nonnegative(),
  statusCode: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe("the receiver's HTTP status; null when none came back"),
  error: z.string().nullable().describe("why the attempt failed; null when it succeeded"),
});

export const ZDelivery = z.object({
  id: z.string(),
  eventId: z.string(),
  event: z.string(),
  status: z.enum(["pending", "delivered", "failed", "abandoned"]),
  attempts: z.number().int().nonnegative(),
  lastStatusCode: z.number().int().nonnegative().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: ZTimestamp.nullable(),
  deliveredAt: ZTimestamp.nullable(),
  createdAt: ZTimestamp,
  clientOrgId: z
    .string()
    .nullable()
    .describe(
      "the managed client whose event this is (a partner's includeClients subscription); null otherwise",
    ),
  history: z
    .array(ZDeliveryAttempt)
    .describe("the delivery's attempts, oldest first: the most recent 25 (`attempts` counts them all)"),
});

export const ZListWebhookDeliveriesOutput = ZOffsetMeta.extend({ rows: z.array(ZDelivery) });
