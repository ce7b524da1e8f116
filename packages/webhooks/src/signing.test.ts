import { verify as octokitVerify } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { buildPayload, generateSigningSecret, signedHeaders } from "./signing";

const createdAt = new Date("2026-01-02T03:04:05.678Z");

describe("generateSigningSecret", () => {
  it("is whsec_ plus base64 of 32 random bytes, different every time", () => {
    const a = generateSigningSecret();
    const b = generateSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe("buildPayload", () => {
  it("splices the stored data JSON verbatim and parses to {event, data, id, createdAt}", () => {
    const dataJson = '{"findingId":"f_1","title":"Public link \\u2014 \\"x\\"","link":"https://e.test/f"}';
    const body = buildPayload({ event: "finding.resolved", dataJson, eventId: "evt_1", createdAt });
    expect(body).toContain(dataJson);
    expect(JSON.parse(body)).toEqual({
      event: "finding.resolved",
      data: { findingId: "f_1", title: 'Public link — "x"', link: "https://e.test/f" },
      id: "evt_1",
      createdAt: "2026-01-02T03:04:05.678Z",
    });
  });
});

describe("signedHeaders", () => {
  const secret = generateSigningSecret();
  const body = buildPayload({
    event: "policy.violation",
    dataJson: '{"ruleId":"r1","severity":"HIGH","count":3}',
    eventId: "evt_abc",
    createdAt,
  });
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = signedHeaders({
    secret,
    body,
    event: "policy.violation",
    eventId: "evt_abc",
    deliveryId: "dlv_1",
    timestamp,
  });

  it("X-Service-Signature verifies with @octokit/webhooks-methods (HMAC over the raw body, full secret)", async () => {
    expect(headers["X-Service-Signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    await expect(octokitVerify(secret, body, headers["X-Service-Signature"] ?? "")).resolves.toBe(true);
  });

  it("X-Service-Signature fails for another body or secret", async () => {
    const sig = headers["X-Service-Signature"] ?? "";
    await expect(octokitVerify(secret, body.replace("HIGH", "LOW"), sig)).resolves.toBe(false);
    await expect(octokitVerify(generateSigningSecret(), body, sig)).resolves.toBe(false);
  });

  it("webhook-* headers verify with the standardwebhooks library", () => {
    const wh = new Webhook(secret);
    const verified = wh.verify(body, {
      "webhook-id": headers["webhook-id"] ?? "",
      "webhook-timestamp": headers["webhook-timestamp"] ?? "",
      "webhook-signature": headers["webhook-signature"] ?? "",
    });
    expect(verified).toEqual(JSON.parse(body));
    expect(headers["webhook-id"]).toBe("evt_abc");
  });

  it("standardwebhooks rejects a tampered body and a wrong secret", () => {
    const h = {
      "webhook-id": headers["webhook-id"] ?? "",
      "webhook-timestamp": headers["webhook-timestamp"] ?? "",
      "webhook-signature": headers["webhook-signature"] ?? "",
    };
    expect(() => new Webhook(secret).verify(body.replace("r1", "r2"), h)).toThrow();
    expect(() => new Webhook(generateSigningSecret()).verify(body, h)).toThrow();
  });

  it("names the event and delivery", () => {
    expect(headers["X-Service-Event"]).toBe("policy.violation");
    expect(headers["X-Service-Delivery"]).toBe("dlv_1");
  });
});

describe("signedHeaders during a secret rotation's overlap", () => {
  const secret = generateSigningSecret();
  const previousSecret = generateSigningSecret();
  const body = buildPayload({ event: "webhook.test", dataJson: '{"x":1}', eventId: "evt_rot", createdAt });
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = signedHeaders({
    secret,
    previousSecret,
    body,
    event: "webhook.test",
    eventId: "evt_rot",
    deliveryId: "dlv_rot",
    timestamp,
  });
  const standard = {
    "webhook-id": headers["webhook-id"],
    "webhook-timestamp": headers["webhook-timestamp"],
    "webhook-signature": headers["webhook-signature"],
  };

  it("lists both X-Service-Signature values, the new secret's first, each verifiable alone", async () => {
    const [current, previous, ...rest] = headers["X-Service-Signature"].split(" ");
    expect(rest).toEqual([]);
    await expect(octokitVerify(secret, body, current ?? "")).resolves.toBe(true);
    await expect(octokitVerify(previousSecret, body, previous ?? "")).resolves.toBe(true);
  });

  it("carries two v1 entries that the standardwebhooks library accepts for either secret", () => {
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(secret).verify(body, standard)).toEqual(JSON.parse(body));
    expect(new Webhook(previousSecret).verify(body, standard)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSigningSecret()).verify(body, standard)).toThrow();
  });

  it("signs with one secret when there is no previous one", () => {
    const one = signedHeaders({
      secret,
      previousSecret: null,
      body,
      event: "e",
      eventId: "i",
      deliveryId: "d",
      timestamp,
    });
    expect(one["X-Service-Signature"]).not.toContain(" ");
    expect(one["webhook-signature"]).not.toContain(" ");
  });
});
