import { randomBytes } from "node:crypto";
import { buildPayload, serviceSignature, signedHeaders } from "@posture/webhooks";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from "./index";

/** A subscription secret in the server's form ("whsec_" + base64 of 32 random bytes). */
const generateSigningSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

// Signatures made by the server's own signing code, verified by the SDK (which never imports it).
const now = 1_790_000_000;
function delivery(secret: string, o: { timestamp?: number } = {}) {
  const body = buildPayload({
    event: "incident.created",
    dataJson: JSON.stringify({ incidentId: "inc_1", title: "Leak", priority: "P1", link: "https://x/api/i" }),
    eventId: "evt_1",
    createdAt: new Date(now * 1000),
  });
  const headers = signedHeaders({
    secret,
    body,
    event: "incident.created",
    eventId: "evt_1",
    deliveryId: "dlv_1",
    timestamp: o.timestamp ?? now,
  });
  return { body, headers: headers as Record<string, string> };
}

const reason = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason;
    throw e;
  }
  return "accepted";
};

describe("verifyWebhook", () => {
  it("accepts a delivery signed by the server and returns the typed event", () => {
    const secret = generateSigningSecret();
    const { body, headers } = delivery(secret);
    const event: WebhookEvent = verifyWebhook({ secret, body, headers, now });
    expect(event).toMatchObject({ event: "incident.created", id: "evt_1", data: { title: "Leak" } });
    if (event.event === "incident.created") expect(event.data.title).toBe("Leak");
    // Headers as a Headers object, and the body as bytes, work the same.
    expect(verifyWebhook({ secret, body: Buffer.from(body), headers: new Headers(headers), now })).toEqual(
      event,
    );
  });

  it("refuses a changed body, another secret, and a missing header of either scheme", () => {
    const secret = generateSigningSecret();
    const { body, headers } = delivery(secret);
    expect(reason(() => verifyWebhook({ secret, body: body.replace("Leak", "Lake"), headers, now }))).toBe(
      "invalid_signature",
    );
    expect(reason(() => verifyWebhook({ secret: generateSigningSecret(), body, headers, now }))).toBe(
      "invalid_signature",
    );
    for (const name of ["X-Service-Signature", "webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const { [name]: _gone, ...rest } = headers;
      expect(
        reason(() => verifyWebhook({ secret, body, headers: rest, now })),
        name,
      ).toBe("missing_header");
    }
    // One scheme valid is not enough: a forged Standard Webhooks signature with a real HMAC fails.
    const forged = { ...headers, "webhook-signature": "v1,AAAA" };
    expect(reason(() => verifyWebhook({ secret, body, headers: forged, now }))).toBe("invalid_signature");
    const forgedService = { ...headers, "X-Service-Signature": serviceSignature("whsec_other", body) };
    expect(reason(() => verifyWebhook({ secret, body, headers: forgedService, now }))).toBe(
      "invalid_signature",
    );
    // A different webhook-id breaks the Standard Webhooks signature (replay under another id).
    expect(
      reason(() => verifyWebhook({ secret, body, headers: { ...headers, "webhook-id": "evt_2" }, now })),
    ).toBe("invalid_signature");
  });

  it("refuses a timestamp outside the tolerance (default 5 minutes), either way", () => {
    const secret = generateSigningSecret();
    const old = delivery(secret, { timestamp: now - 301 });
    expect(reason(() => verifyWebhook({ secret, ...old, now }))).toBe("timestamp_out_of_tolerance");
    const future = delivery(secret, { timestamp: now + 301 });
    expect(reason(() => verifyWebhook({ secret, ...future, now }))).toBe("timestamp_out_of_tolerance");
    expect(reason(() => verifyWebhook({ secret, ...old, now, toleranceSeconds: 600 }))).toBe("accepted");
    const garbled = delivery(secret);
    garbled.headers["webhook-timestamp"] = "soon";
    expect(reason(() => verifyWebhook({ secret, ...garbled, now }))).toBe("invalid_timestamp");
  });

  it("accepts any of several space-separated signatures (a rotation signs with both secrets)", () => {
    const oldSecret = generateSigningSecret();
    const newSecret = generateSigningSecret();
    const a = delivery(oldSecret);
    const b = delivery(newSecret);
    const headers = {
      ...a.headers,
      "X-Service-Signature": `${b.headers["X-Service-Signature"]} ${a.headers["X-Service-Signature"]}`,
      "webhook-signature": `${b.headers["webhook-signature"]} ${a.headers["webhook-signature"]}`,
    };
    // A receiver that has only the old secret, only the new one, or both: all accept.
    for (const secret of [oldSecret, newSecret, [oldSecret, newSecret]])
      expect(reason(() => verifyWebhook({ secret, body: a.body, headers, now }))).toBe("accepted");
    // A receiver still on the old secret after the overlap ended (only the new one signs) refuses.
    expect(reason(() => verifyWebhook({ secret: oldSecret, ...b, now }))).toBe("invalid_signature");
    // A receiver that holds both secrets accepts a delivery signed by either alone.
    expect(reason(() => verifyWebhook({ secret: [oldSecret, newSecret], ...b, now }))).toBe("accepted");
  });

  it("keeps node's IncomingHttpHeaders shape (lower-case keys, arrays) working", () => {
    const secret = generateSigningSecret();
    const { body, headers } = delivery(secret);
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(reason(() => verifyWebhook({ secret, body, headers: lower, now }))).toBe("accepted");
  });
});
