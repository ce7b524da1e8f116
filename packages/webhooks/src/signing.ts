import { createHmac, randomBytes } from "node:crypto";
import { iso } from "@posture/platform";

const SECRET_PREFIX = "whsec_";

/** A new subscription secret: "whsec_" + base64 of 32 random bytes (the Standard Webhooks form). */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

export type TPayloadInput = {
  event: string;
  dataJson: string;
  eventId: string;
  createdAt: Date;
  /** A managed client's event delivered to its partner's subscription (issue 17). */
  client?: { orgId: string; name: string } | null;
};

/**
 * The request body, byte for byte. `data` is spliced in as the JSON text stored when the event
 * was emitted, so every retry sends (and signs) exactly the same bytes.
 */
export function buildPayload(p: TPayloadInput): string {
  const client = p.client
    ? `,"client":${JSON.stringify({ orgId: p.client.orgId, name: p.client.name })}`
    : "";
  return `{"event":${JSON.stringify(p.event)},"data":${p.dataJson},"id":${JSON.stringify(p.eventId)},"createdAt":${JSON.stringify(iso(p.createdAt))}${client}}`;
}

/** `sha256=<hex>` over the raw body, keyed with the whole secret string (the spec's header). */
export function serviceSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
}

/** Standard Webhooks `v1,<base64>` over "<id>.<timestamp>.<body>", keyed with the decoded secret. */
export function standardSignature(secret: string, msgId: string, timestamp: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    "base64",
  );
  const mac = createHmac("sha256", key).update(`${msgId}.${timestamp}.${body}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

export type TSignedHeadersInput = {
  secret: string;
  /**
   * A rotated-out secret still inside its overlap window: it signs too, so receivers that have
   * not switched yet keep verifying. Each header then carries two signatures, the new one first.
   */
  previousSecret?: string | null;
  body: string;
  event: string;
  eventId: string;
  deliveryId: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
};

export type TSignedHeaders = {
  "X-Service-Signature": string;
  "X-Service-Event": string;
  "X-Service-Delivery": string;
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

export function signedHeaders(p: TSignedHeadersInput): TSignedHeaders {
  const secrets = p.previousSecret ? [p.secret, p.previousSecret] : [p.secret];
  // Both headers list their signatures space-separated: Standard Webhooks' own form for several
  // `v1,` entries, and the same separator for X-Service-Signature's `sha256=` values.
  return {
    "X-Service-Signature": secrets.map((s) => serviceSignature(s, p.body)).join(" "),
    "X-Service-Event": p.event,
    "X-Service-Delivery": p.deliveryId,
    "webhook-id": p.eventId,
    "webhook-timestamp": String(p.timestamp),
    "webhook-signature": secrets.map((s) => standardSignature(s, p.eventId, p.timestamp, p.body)).join(" "),
  };
}
