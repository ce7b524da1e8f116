import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookDeliveries, webhookSubscriptions } from "@posture/db";
import { emitEvent } from "../testing";
import { verifyServiceSignature, verifyStandardWebhook } from "../testing";
import { deliverWebhook, type TDeliverDeps } from "./deliver";
import { silent, useDeliveryFixtures, violation } from "./delivery-fixtures";
import { requeueOverdueDeliveries } from "./sweep";

const { db, runtime, receiver, org, liveQueue, recordingQueue, subscribe, delivery, waitForStatus } =
  useDeliveryFixtures();

describe("webhook delivery", () => {
  it("POSTs the signed body; both signatures verify with independent libraries", async () => {
    const orgId = await org();
    const rx = await receiver();
    const sub = await subscribe(orgId, rx.url);
    const jobs = liveQueue();
    const { eventId, deliveryIds } = await emitEvent(db(), jobs, {
      orgId,
      type: "policy.violation",
      data: violation,
    });
    expect(deliveryIds).toHaveLength(1);
    const id = deliveryIds[0] ?? "";
    const row = await waitForStatus(id, "delivered");
    expect(row).toMatchObject({ attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    expect(row?.deliveredAt).toBeInstanceOf(Date);

    expect(rx.received).toHaveLength(1);
    const r = rx.received[0];
    if (!r) throw new Error("nothing received");
    expect(r.method).toBe("POST");
    expect(r.url).toBe("/hook");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["x-service-event"]).toBe("policy.violation");
    expect(r.headers["x-service-delivery"]).toBe(id);
    expect(r.headers["webhook-id"]).toBe(eventId);
    expect(await verifyServiceSignature(sub.secret, r)).toBe(true);
    const parsed = verifyStandardWebhook(sub.secret, r);
    expect(parsed).toEqual({
      event: "policy.violation",
      data: violation,
      id: eventId,
      createdAt: expect.any(String),
    });
    expect(Math.abs(Number(r.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
  });

  it("retries after a 500 and delivers the same signed bytes", async () => {
    const orgId = await org();
    const rx = await receiver((_r, i) => (i === 0 ? 500 : 204));
    const sub = await subscribe(orgId, rx.url);
    const jobs = liveQueue();
    const { deliveryIds } = await emitEvent(db(), jobs, {
      orgId,
      type: "policy.violation",
      data: violation,
    });
    const row = await waitForStatus(deliveryIds[0] ?? "", "delivered");
    expect(row).toMatchObject({ attempts: 2, lastStatusCode: 204, lastError: null });
    expect(rx.received).toHaveLength(2);
    const [first, second] = rx.received;
    expect(second?.body).toBe(first?.body);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    for (const r of rx.received) expect(await verifyServiceSignature(sub.secret, r)).toBe(true);
  });

  it("records a failed attempt and schedules the next one with the back-off", async () => {
    const orgId = await org();
    const rx = await receiver(() => 503);
    await subscribe(orgId, rx.url);
    const { q, calls } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    const deps: TDeliverDeps = { db: db(), runtime, jobs: q, log: silent, backoff: (n) => n * 60_000 };
    const before = Date.now();
    expect(await deliverWebhook(deps, id)).toBe("retry-scheduled");
    const row = await delivery(id);
    expect(row).toMatchObject({
      status: "failed",
      attempts: 1,
      lastStatusCode: 503,
      lastError: "receiver answered HTTP 503",
    });
    expect(row?.nextAttemptAt?.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(calls.at(-1)).toEqual({
      name: "webhook.deliver",
      data: { deliveryId: id },
      opts: { jobId: `${id}-2`, delayMs: 60_000 },
    });
    // The first job re-delivered (a duplicate) is not due yet and sends nothing.
    expect(await deliverWebhook(deps, id)).toBe("not-due");
    expect(rx.received).toHaveLength(1);
  });

  it("abandons the delivery after the last attempt", async () => {
    const orgId = await org();
    const rx = await receiver(() => 500);
    await subscribe(orgId, rx.url);
    const jobs = liveQueue({ backoff: (n) => (n < 3 ? 10 : null) });
    const { deliveryIds } = await emitEvent(db(), jobs, {
      orgId,
      type: "policy.violation",
      data: violation,
    });
    const row = await waitForStatus(deliveryIds[0] ?? "", "abandoned");
    expect(row).toMatchObject({ attempts: 3, lastStatusCode: 500, nextAttemptAt: null });
    expect(rx.received).toHaveLength(3);
  });

  it("disables the subscription on 410 Gone and sends nothing more", async () => {
    const orgId = await org();
    const rx = await receiver(() => 410);
    const sub = await subscribe(orgId, rx.url);
    const { q } = recordingQueue();
    const first = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const second = await emitEvent(db(), q, {
      orgId,
      type: "policy.violation",
      data: { ...violation, count: 4 },
    });
    const deps: TDeliverDeps = { db: db(), runtime, jobs: q, log: silent };
    expect(await deliverWebhook(deps, first.deliveryIds[0] ?? "")).toBe("gone");
    const [s] = await db().select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id));
    expect(s?.status).toBe("disabled");
    expect(s?.disabledReason).toMatch(/410/);
    expect(await delivery(first.deliveryIds[0] ?? "")).toMatchObject({
      status: "abandoned",
      lastStatusCode: 410,
      attempts: 1,
    });
    // Already queued for the now-disabled subscription: not sent.
    expect(await deliverWebhook(deps, second.deliveryIds[0] ?? "")).toBe("subscription-disabled");
    expect(await delivery(second.deliveryIds[0] ?? "")).toMatchObject({ status: "abandoned", attempts: 0 });
    // New events no longer reach it.
    const third = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    expect(third.deliveryIds).toHaveLength(0);
    expect(rx.received).toHaveLength(1);
  });

  it("does not follow a redirect", async () => {
    const orgId = await org();
    const elsewhere = await receiver();
    const rx = await receiver((_r, _i, res) => {
      res.setHeader("Location", elsewhere.url);
      return 302;
    });
    await subscribe(orgId, rx.url);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    expect(await deliverWebhook({ db: db(), runtime, jobs: q, log: silent }, id)).toBe("retry-scheduled");
    const row = await delivery(id);
    expect(row).toMatchObject({ status: "failed", lastStatusCode: 302 });
    expect(row?.lastError).toMatch(/redirects are not followed/);
    expect(rx.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
  });

  it("gives up on a receiver that does not answer within the timeout", async () => {
    const orgId = await org();
    const rx = await receiver(() => "hang");
    await subscribe(orgId, rx.url);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    await deliverWebhook({ db: db(), runtime, jobs: q, log: silent, timeoutMs: 300 }, id);
    expect(await delivery(id)).toMatchObject({
      status: "failed",
      lastStatusCode: null,
      lastError: "timed out after 300 ms",
    });
  });

  it("is idempotent: a delivered delivery is not sent again, concurrent runs send once", async () => {
    const orgId = await org();
    const rx = await receiver();
    await subscribe(orgId, rx.url);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    const deps: TDeliverDeps = { db: db(), runtime, jobs: q, log: silent };
    const outcomes = await Promise.all([
      deliverWebhook(deps, id),
      deliverWebhook(deps, id),
      deliverWebhook(deps, id),
    ]);
    expect(outcomes.filter((o) => o === "delivered")).toHaveLength(1);
    expect(await deliverWebhook(deps, id)).toBe("already-final");
    expect(rx.received).toHaveLength(1);
    expect(await delivery(id)).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("sends nothing for a deleted subscription", async () => {
    const orgId = await org();
    const rx = await receiver();
    const sub = await subscribe(orgId, rx.url);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    await db().delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id));
    expect(await deliverWebhook({ db: db(), runtime, jobs: q, log: silent }, deliveryIds[0] ?? "")).toBe(
      "missing",
    );
    expect(rx.received).toHaveLength(0);
  });

  it("re-queues deliveries whose job was lost", async () => {
    const orgId = await org();
    const rx = await receiver();
    await subscribe(orgId, rx.url);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(db(), q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    await db()
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(Date.now() - 5 * 60_000) })
      .where(eq(webhookDeliveries.id, id));
    const jobs = liveQueue();
    expect(await requeueOverdueDeliveries(db(), jobs)).toBeGreaterThanOrEqual(1);
    expect(await waitForStatus(id, "delivered")).toMatchObject({ attempts: 1 });
    expect(rx.received).toHaveLength(1);
  });
});
