import { describe, expect, it } from "vitest";
import { emitEvent, verifyServiceSignature, verifyStandardWebhook, waitFor } from "@posture/webhooks/testing";
import { errorCode } from "../helpers";
import { useWebhookGateway, violation, type TWebhookBody } from "./harness";

const h = useWebhookGateway();

describe("webhook delivery through the gateway", () => {
  it("delivers a signed event that independent verifiers accept, and logs the delivery", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    const { eventId } = await emitEvent(h.gw.db.db, h.jobs, {
      orgId: h.admin.orgId,
      type: "policy.violation",
      data: violation,
    });
    await waitFor(async () => (await h.deliveries(sub.id)).rows[0]?.status === "delivered");

    const r = rx.received[0];
    if (!r) throw new Error("nothing received");
    expect(await verifyServiceSignature(sub.secret, r)).toBe(true);
    expect(verifyStandardWebhook(sub.secret, r)).toEqual({
      event: "policy.violation",
      data: violation,
      id: eventId,
      createdAt: expect.any(String),
    });
    expect(r.headers["x-service-event"]).toBe("policy.violation");

    const log = await h.deliveries(sub.id);
    expect(log).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(log.rows[0]).toMatchObject({
      id: r.headers["x-service-delivery"],
      eventId,
      event: "policy.violation",
      status: "delivered",
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(log.rows[0]?.deliveredAt).toEqual(expect.any(String));
  });

  it("retries a receiver that fails first (500) and then succeeds", async () => {
    const rx = await h.receiver((_r, i) => (i === 0 ? 500 : 200));
    const sub = await h.create(rx.url);
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    await waitFor(async () => (await h.deliveries(sub.id)).rows[0]?.status === "delivered");
    expect((await h.deliveries(sub.id)).rows[0]).toMatchObject({ attempts: 2, lastStatusCode: 200 });
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1]?.body).toBe(rx.received[0]?.body);
  });

  it("disables the subscription when the receiver answers 410", async () => {
    const rx = await h.receiver(() => 410);
    const sub = await h.create(rx.url);
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    await waitFor(async () => (await h.deliveries(sub.id)).rows[0]?.status === "abandoned");
    const list = await h.gw.request("GET", "/api/webhooks", { cookie: h.admin.cookie });
    const listed = (list.body as { webhooks: TWebhookBody[] }).webhooks.find((w) => w.id === sub.id);
    expect(listed?.status).toBe("disabled");
    expect(listed?.disabledReason).toMatch(/410/);
    expect(rx.received).toHaveLength(1);
  });

  it("does not follow a 302: the attempt fails and the redirect target sees nothing", async () => {
    const elsewhere = await h.receiver();
    const rx = await h.receiver((_r, _i, res) => {
      res.setHeader("Location", elsewhere.url);
      return 302;
    });
    const sub = await h.create(rx.url);
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    await waitFor(async () => (await h.deliveries(sub.id)).rows[0]?.status === "abandoned");
    const row = (await h.deliveries(sub.id)).rows[0];
    expect(row).toMatchObject({ attempts: 3, lastStatusCode: 302 });
    expect(row?.lastError).toMatch(/redirects are not followed/);
    expect(rx.received).toHaveLength(3);
    expect(elsewhere.received).toHaveLength(0);
  });

  it("pages the delivery log with limit and offset (max 200)", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url, ["finding.resolved"]);
    for (let i = 0; i < 3; i++) {
      await emitEvent(h.gw.db.db, h.jobs, {
        orgId: h.admin.orgId,
        type: "finding.resolved",
        data: {
          findingId: `f${i}`,
          title: `Finding ${i}`,
          link: "https://app.example.test/f",
          action: null,
          remediationId: null,
        },
      });
    }
    await waitFor(
      async () => (await h.deliveries(sub.id)).rows.filter((r) => r.status === "delivered").length === 3,
    );
    const page = await h.deliveries(sub.id, "?limit=2&offset=1");
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.rows).toHaveLength(2);
    const all = await h.deliveries(sub.id, "?limit=200");
    expect(all.rows.slice(1).map((r) => r.id)).toEqual(page.rows.map((r) => r.id));
    const tooMany = await h.gw.request("GET", `/api/webhooks/${sub.id}/deliveries?limit=201`, {
      cookie: h.admin.cookie,
    });
    expect(tooMany.status).toBe(400);
    expect(errorCode(tooMany)).toBe("invalid_input");
  });
});
