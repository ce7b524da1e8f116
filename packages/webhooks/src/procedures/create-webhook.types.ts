import { z } from "zod";
import type { TMeta } from "@posture/platform";
import { ZSubscribableEventType } from "../event-types";
import { ZWebhook } from "./webhook.types";

export const createWebhookMeta = {
  openapi: {
    method: "POST",
    path: "/webhooks",
    tags: ["webhooks"],
    summary: "Subscribe to events",
    description:
      "Creates a subscription and returns its signing secret (`whsec_…`) this once. The URL must be http(s) " +
      "and resolve to public addresses only.",
    protect: true,
    successDescription: "Created",
  },
  successStatus: 201,
} satisfies TMeta;

export const ZCreateWebhookInput = z.strictObject({
  url: z.string().trim().min(1).max(2048),
  events: z
    .array(ZSubscribableEventType)
    .min(1)
    .refine((list) => new Set(list).size === list.length, { message: "events must not repeat" }),
});

export const ZCreateWebhookOutput = ZWebhook.extend({ secret: z.string() });
