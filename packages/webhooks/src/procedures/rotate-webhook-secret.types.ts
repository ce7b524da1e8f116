import { z } from "zod";
import { ZTimestamp, type TMeta } from "@posture/platform";
import { DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS } from "../services/rotate-secret";
import { ZWebhook, ZWebhookIdInput } from "./webhook.types";

export const rotateWebhookSecretMeta = {
  openapi: {
    method: "POST",
    path: "/webhooks/{id}/rotate-secret",
    tags: ["webhooks"],
    summary: "Rotate the signing secret",
    description:
      "Replaces the subscription's signing secret and returns the new one (`secret`) this once. For " +
      "`overlapSeconds` (default 86400, one day; at most 604800, seven days; 0 for none) the previous secret " +
      "still signs: every delivery carries both signatures, space-separated and the new one first, in " +
      "`X-Service-Signature` (`sha256=<new> sha256=<previous>`) and in `webhook-signature` (`v1,<new> " +
      "v1,<previous>`), so a receiver can switch secrets without dropping a message; " +
      "`previousSecretExpiresAt` says when the old one stops. Rotating again during an overlap retires the " +
      "oldest secret at once (two sign at most). Audited (WEBHOOK_SECRET_ROTATED), never with a secret.",
    protect: true,
  },
} satisfies TMeta;

export const ZRotateWebhookSecretInput = ZWebhookIdInput.extend({
  overlapSeconds: z.number().int().min(0).max(MAX_OVERLAP_SECONDS).default(DEFAULT_OVERLAP_SECONDS),
});

export const ZRotateWebhookSecretOutput = ZWebhook.extend({
  secret: z.string().describe("the new signing secret (`whsec_…`), shown this once"),
  previousSecretExpiresAt: ZTimestamp.nullable().describe(
    "until when the previous secret also signs; null without an overlap",
  ),
});
