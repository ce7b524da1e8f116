import { describe, expect, it } from "vitest";
import {
  emitEvent,
  verifyServiceSignature,
  verifyStandardWebhook,
  waitFor,
  type TReceived,
} from "@posture/webhooks/testing";
import { errorCode } from "../helpers";
import { useWebhookGateway, violation, type TDeliveryBody, type TWebhookBody } from "./harness";

// POST /api/webhooks/{id}/test and POST /api/webhooks/{id}/rotate-secret: a test event reaches the
// one subscription asked for, signed; during a rotation's overlap every delivery carries both
// secrets' signatures in both headers, and only the new one's after it.

const h = useWebhookGateway();

type TRotated = TWebhookBody & { secret: string; previousSecretExpiresAt: string | null };

const header = (r: TReceived, name: string) => String(r.headers[name] ?? "");

/** Whether any one of X-Service-Signature's space-separated `sha256=` values is this secret's. */
async function serviceSignedBy(secret: string, r: TReceived): Promise<boolean> {
  const values = header(r, "x-service-signature").split(" ");
  const checks = await Promise.all(
    values.map((v) =>
      verifyServiceSignature(secret, { ...r, headers: { ...r.headers, "x-service-signature": v } }),
    ),
  );
  return checks.some(Boolean);
}

const standardSignedBy = (secret: string, r: TReceived) => {
  try {
    verifyStandardWebhook(secret, r);
    return true;
  } catch {
    return false;
  }
};

describe("webhook test deliveries", () => {
  it("sends a signed webhook.test to that subscription only, through the delivery log", async () => {
    const rx = await h.receiver();
    const other = await h.receiver();
    const sub = await h.create(rx.url, ["policy.violation"]);
    await h.create(other.url, ["policy.violation"]);

    const res = await h.gw.request("POST", `/api/webhooks/${sub.id}/test`, { cookie: h.admin.cookie });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const queued = res.body as TDeliveryBody;
    expect(queued).toMatchObject({ event: "webhook.test" });
    // The in-process queue may have delivered it before the answer was read back.
    expect(["pending", "delivered"]).toContain(queued.status);

    await waitFor(async () => (await h.deliveries(sub.id)).rows[0]?.status === "delivered");
    const r = rx.received[0];
    if (!r) throw new Error("nothing received");
    expect(await serviceSignedBy(sub.secret, r)).toBe(true);
    expect(header(r, "x-service-signature")).not.toContain(" ");
    expect(verifyStandardWebhook(sub.secret, r)).toEqual({
      event: "webhook.test",
      data: { subscriptionId: sub.id, requestedBy: h.admin.user.email, message: expect.any(String) },
      id: queued.eventId,
      createdAt: expect.any(String),
    });
    expect(header(r, "x-service-event")).toBe("webhook.test");
    expect(header(r, "x-service-delivery")).toBe(queued.id);
    // Not fanned out: the organization's other subscription got nothing.
    expect(other.received).toHaveLength(0);
    expect((await h.deliveries(sub.id)).rows[0]).toMatchObject({ id: queued.id, attempts: 1 });

    const audit = await h.gw.request("GET", "/api/audit?limit=20", { cookie: h.admin.cookie });
    expect(JSON.stringify(audit.body)).toContain("WEBHOOK_TESTED");
  });

  it("refuses webhook.test as a subscribed event, and another organization's subscription is 404", async () => {
    const bad = await h.gw.request("POST", "/api/webhooks", {
      cookie: h.admin.cookie,
      body: { url: "https://example.com/hook", events: ["webhook.test"] },
    });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("invalid_input");

    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    const stranger = await h.gw.createActor({ role: "ADMIN" });
    for (const path of [`/api/webhooks/${sub.id}/test`, `/api/webhooks/${sub.id}/rotate-secret`]) {
      const res = await h.gw.request("POST", path, { cookie: stranger.cookie });
      expect(res.status, path).toBe(404);
      expect(errorCode(res)).toBe("not_found");
    }
    expect(rx.received).toHaveLength(0);
  });
});

describe("webhook secret rotation", () => {
  it("signs with both secrets during the overlap and with the new one only after it", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    const old = sub.secret;

    const res = await h.gw.request("POST", `/api/webhooks/${sub.id}/rotate-secret`, {
      cookie: h.admin.cookie,
      body: { overlapSeconds: 3 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rotated = res.body as TRotated;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.id).toBe(sub.id);
    const until = Date.parse(rotated.previousSecretExpiresAt ?? "");
    expect(until - Date.now()).toBeLessThanOrEqual(3_500);

    // During the overlap: an ordinary event, signed by both secrets in both headers.
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    const during = await waitFor(async () => rx.received[0]);
    expect(header(during, "x-service-signature").split(" ")).toHaveLength(2);
    expect(header(during, "webhook-signature").split(" ")).toHaveLength(2);
    expect(await serviceSignedBy(rotated.secret, during)).toBe(true);
    expect(await serviceSignedBy(old, during)).toBe(true);
    expect(standardSignedBy(rotated.secret, during)).toBe(true);
    expect(standardSignedBy(old, during)).toBe(true);

    // After it: the new secret alone.
    await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now()) + 500));
    const test = await h.gw.request("POST", `/api/webhooks/${sub.id}/test`, { cookie: h.admin.cookie });
    expect(test.status).toBe(202);
    const after = await waitFor(async () => rx.received[1]);
    expect(header(after, "x-service-signature").split(" ")).toHaveLength(1);
    expect(await serviceSignedBy(rotated.secret, after)).toBe(true);
    expect(await serviceSignedBy(old, after)).toBe(false);
    expect(standardSignedBy(rotated.secret, after)).toBe(true);
    expect(standardSignedBy(old, after)).toBe(false);

    // Audited without the secret.
    const audit = await h.gw.request("GET", "/api/audit?limit=50", { cookie: h.admin.cookie });
    const text = JSON.stringify(audit.body);
    expect(text).toContain("WEBHOOK_SECRET_ROTATED");
    expect(text).not.toContain(rotated.secret);
    expect(text).not.toContain(old.slice(6));
  });

  it("keeps the previous secret for a day by default, none with overlapSeconds 0, and bounds the overlap", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    const byDefault = await h.gw.request("POST", `/api/webhooks/${sub.id}/rotate-secret`, {
      cookie: h.admin.cookie,
    });
    expect(byDefault.status).toBe(200);
    const day = Date.parse((byDefault.body as TRotated).previousSecretExpiresAt ?? "") - Date.now();
    expect(day).toBeGreaterThan(86_400_000 - 60_000);
    expect(day).toBeLessThanOrEqual(86_400_000 + 5_000);

    const none = await h.gw.request("POST", `/api/webhooks/${sub.id}/rotate-secret`, {
      cookie: h.admin.cookie,
      body: { overlapSeconds: 0 },
    });
    expect(none.status).toBe(200);
    const fresh = none.body as TRotated;
    expect(fresh.previousSecretExpiresAt).toBeNull();
    await h.gw.request("POST", `/api/webhooks/${sub.id}/test`, { cookie: h.admin.cookie });
    const r = await waitFor(async () => rx.received[0]);
    expect(header(r, "x-service-signature").split(" ")).toHaveLength(1);
    expect(await serviceSignedBy(fresh.secret, r)).toBe(true);

    for (const overlapSeconds of [604_801, -1, 1.5, "60"]) {
      const res = await h.gw.request("POST", `/api/webhooks/${sub.id}/rotate-secret`, {
        cookie: h.admin.cookie,
        body: { overlapSeconds },
      });
      expect(res.status, String(overlapSeconds)).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
  });

  it("is for admins: a member is refused", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    const member = await h.gw.createUser(h.admin.orgId, "member");
    const cookie = await h.gw.createSession(h.admin.orgId, member.id);
    for (const path of [`/api/webhooks/${sub.id}/test`, `/api/webhooks/${sub.id}/rotate-secret`]) {
      const res = await h.gw.request("POST", path, { cookie });
      expect(res.status, path).toBe(403);
      expect(errorCode(res)).toBe("forbidden");
    }
  });
});
