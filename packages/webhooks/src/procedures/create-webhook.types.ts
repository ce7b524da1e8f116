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
      "and resolve to public addresses only. A partner organization may set `includeClients: true` to " +
      "receive its managed clients' events too (while each client's consent stands); each such delivery " +
      "names the client in `client: {orgId, name}`. `includeClients` from any other organization is 400.",
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
  /** A partner's subscription that also receives its managed clients' events; 400 for other organizations. */
  includeClients: z.boolean().optional(),
});

export const ZCreateWebhookOutput = ZWebhook.extend({ secret: z.string() });
