import { z } from "zod";
import type { TMeta } from "@posture/platform";
import { ZWebhook } from "./webhook.types";

export const listWebhooksMeta = {
  openapi: {
    method: "GET",
    path: "/webhooks",
    tags: ["webhooks"],
    summary: "List webhook subscriptions",
    description: "The organization's webhook subscriptions, newest first. Signing secrets are never listed.",
    protect: true,
  },
} satisfies TMeta;

export const ZListWebhooksInput = z.void();

export const ZListWebhooksOutput = z.object({ webhooks: z.array(ZWebhook) });
