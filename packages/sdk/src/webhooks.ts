import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "./errors.js";
import type { webhooks } from "./schema.js";

/** Any event the service sends: `{event, data, id, createdAt}`, `data` typed per `event`. */
export type WebhookEvent = {
  [K in keyof webhooks]: webhooks[K] extends {
    post: { requestBody?: { content: { "application/json": infer B } } };
  }
    ? B
    : never;
}[keyof webhooks];

export type WebhookHeaders =
  Headers | Record<string, string | string[] | undefined> | Iterable<[string, string]>;

export type VerifyWebhookOptions = {
  /** The subscription's `whsec_…` secret; during a rotation, the old and the new one. */
  secret: string | readonly string[];
  /** The raw request body, exactly as received (never a re-serialized object). */
  body: string | Uint8Array;
  headers: WebhookHeaders;
  /** Largest accepted distance between `webhook-timestamp` and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Unix seconds; default: the clock. */
  now?: number;
};

const SECRET_PREFIX = "whsec_";

function header(headers: WebhookHeaders, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const entries: Iterable<[string, unknown]> =
    Symbol.iterator in headers
      ? (headers as Iterable<[string, string]>)
      : Object.entries(headers as Record<string, unknown>);
  for (const [k, v] of entries) {
    if (k.toLowerCase() !== name) continue;
    if (Array.isArray(v)) return v.join(" ");
    return typeof v === "string" ? v : null;
  }
  return null;
}

function required(headers: WebhookHeaders, name: string): string {
  const value = header(headers, name);
  if (value === null || value.trim() === "")
    throw new WebhookVerificationError("missing_header", `missing ${name} header`);
  return value;
}

/** Constant time for equal lengths; a different length is simply not equal. */
function same(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function standardKey(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    "base64",
  );
}

/**
 * Verifies a delivery before anything in it is trusted, and returns the parsed event. Both
 * signatures must hold: `X-Service-Signature` (`sha256=<hex>`, HMAC-SHA256 of the body keyed with
 * the whole secret) and the Standard Webhooks `webhook-signature` (`v1,<base64>` over
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded secret), with
 * `webhook-timestamp` within the tolerance. Either header may list several signatures separated
 * by spaces (a secret rotation signs with both secrets); one match with any given secret suffices.
 * Comparisons are constant-time. Throws WebhookVerificationError.
 */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookEvent {
  const secrets = typeof options.secret === "string" ? [options.secret] : [...options.secret];
  if (secrets.length === 0) throw new TypeError("verifyWebhook: no secret given");
  const body =
    typeof options.body === "string" ? Buffer.from(options.body, "utf8") : Buffer.from(options.body);

  const service = required(options.headers, "x-service-signature");
  const id = required(options.headers, "webhook-id");
  const timestamp = required(options.headers, "webhook-timestamp");
  const standard = required(options.headers, "webhook-signature");

  if (!/^\d+$/.test(timestamp.trim()))
    throw new WebhookVerificationError("invalid_timestamp", "webhook-timestamp is not Unix seconds");
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `webhook-timestamp is more than ${tolerance} s from now`,
    );

  const serviceSigs = service
    .split(/[\s,]+/)
    .filter((s) => s.startsWith("sha256="))
    .map((s) => Buffer.from(s.slice("sha256=".length), "hex"));
  const serviceOk = secrets.some((secret) => {
    const expected = createHmac("sha256", secret).update(body).digest();
    return serviceSigs.some((sig) => same(sig, expected));
  });
  if (!serviceOk)
    throw new WebhookVerificationError("invalid_signature", "X-Service-Signature does not match the body");

  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, "utf8"), body]);
  const standardSigs = standard
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .map((s) => Buffer.from(s.slice(3), "base64"));
  const standardOk = secrets.some((secret) => {
    const expected = createHmac("sha256", standardKey(secret)).update(signed).digest();
    return standardSigs.some((sig) => same(sig, expected));
  });
  if (!standardOk)
    throw new WebhookVerificationError("invalid_signature", "webhook-signature does not match the body");

  try {
    return JSON.parse(body.toString("utf8")) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("invalid_payload", "the body is not JSON");
  }
}
