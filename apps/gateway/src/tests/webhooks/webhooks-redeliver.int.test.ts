import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, webhookDeliveries } from "@posture/db";
import { emitEvent, waitFor } from "@posture/webhooks/testing";
import { errorCode } from "../helpers";
import { useWebhookGateway, violation, type TDeliveryBody } from "./harness";

const h = useWebhookGateway();

async function oneDelivery(subscriptionId: string, status: string): Promise<TDeliveryBody> {
  let row: TDeliveryBody | undefined;
  await waitFor(async () => {
    row = (await h.deliveries(subscriptionId)).rows[0];
    return row?.status === status;
  });
  if (!row) throw new Error("no delivery");
  return row;
}

const redeliver = (subscriptionId: string, deliveryId: string, cookie = h.admin.cookie) =>
  h.gw.request("POST", `/api/webhooks/${subscriptionId}/deliveries/${deliveryId}/redeliver`, { cookie });

const redeliveryAudits = (deliveryId: string) =>
  h.gw.db.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.target, deliveryId), eq(auditLog.action, "WEBHOOK_REDELIVERED")));

describe("webhook delivery attempts", () => {
  it("keeps every attempt: when, how long, the status code and the error", async () => {
    const rx = await h.receiver((_r, i) => (i === 0 ? 500 : i === 1 ? 503 : 204));
    const sub = await h.create(rx.url);
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    const d = await oneDelivery(sub.id, "delivered");
    expect(d.attempts).toBe(3);
    expect(d.history.map((a) => [a.attempt, a.statusCode, a.manual])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 204, false],
    ]);
    expect(d.history.map((a) => a.error)).toEqual([
      "receiver answered HTTP 500",
      "receiver answered HTTP 503",
      null,
    ]);
    for (const a of d.history) {
      expect(a.durationMs).toBeGreaterThanOrEqual(0);
      expect(a.durationMs).toBeLessThan(10_000);
      expect(Date.parse(a.at)).toBeGreaterThanOrEqual(Date.parse(d.createdAt) - 1_000);
    }
    const times = d.history.map((a) => Date.parse(a.at));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
  });

  it("records an attempt that got no answer with a null status code", async () => {
    const sub = await h.create("http://127.0.0.1:9/unreachable");
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    const d = await oneDelivery(sub.id, "abandoned");
    expect(d.history).toHaveLength(3);
    for (const a of d.history) {
      expect(a.statusCode).toBeNull();
      expect(a.error).toEqual(expect.any(String));
    }
  });
});

describe("manual redelivery", () => {
  it("sends a delivered event again: same event id, delivery id and body, logged as manual and audited", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    const { eventId } = await emitEvent(h.gw.db.db, h.jobs, {
      orgId: h.admin.orgId,
      type: "policy.violation",
      data: violation,
    });
    const first = await oneDelivery(sub.id, "delivered");

    const res = await redeliver(sub.id, first.id);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ id: first.id, eventId });
    await waitFor(async () => rx.received.length === 2);
    // The outcome and its attempt row are written together.
    const d = await oneDelivery(sub.id, "delivered");
    expect(d.attempts).toBe(2);
    expect(d.history.map((a) => [a.attempt, a.manual, a.statusCode])).toEqual([
      [1, false, 200],
      [2, true, 200],
    ]);

    const [a, b] = rx.received;
    expect(b?.body).toBe(a?.body);
    expect(b?.headers["x-service-delivery"]).toBe(first.id);
    expect(JSON.parse(b?.body ?? "{}")).toMatchObject({ id: eventId, event: "policy.violation" });

    const audits = await redeliveryAudits(first.id);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ userEmail: h.admin.user.email, orgId: h.admin.orgId });
    expect(audits[0]?.metadata).toMatchObject({ subscriptionId: sub.id, eventId });
  });

  it("reopens an abandoned delivery: one more attempt, no new retry schedule when it fails again", async () => {
    let healthy = false;
    const rx = await h.receiver(() => (healthy ? 200 : 500));
    const sub = await h.create(rx.url);
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    const abandoned = await oneDelivery(sub.id, "abandoned");
    expect(abandoned.attempts).toBe(3);

    // Still failing: one attempt, then abandoned again (the schedule was used up).
    expect((await redeliver(sub.id, abandoned.id)).status).toBe(202);
    await waitFor(async () => (await oneDelivery(sub.id, "abandoned")).attempts === 4);
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.received).toHaveLength(4);

    // The receiver is fixed: the next redelivery lands.
    healthy = true;
    expect((await redeliver(sub.id, abandoned.id)).status).toBe(202);
    const d = await oneDelivery(sub.id, "delivered");
    expect(d).toMatchObject({ attempts: 5, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    expect(d.history.map((a) => [a.attempt, a.manual, a.statusCode])).toEqual([
      [1, false, 500],
      [2, false, 500],
      [3, false, 500],
      [4, true, 500],
      [5, true, 200],
    ]);
    expect(await redeliveryAudits(abandoned.id)).toHaveLength(2);
  });

  it("refuses while an attempt is being sent, and for a disabled subscription (409)", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    const d = await oneDelivery(sub.id, "delivered");

    // What a worker's claim looks like mid-attempt: the counter moved on, a lease in the future.
    await h.gw.db.db
      .update(webhookDeliveries)
      .set({ status: "failed", attempts: 2, nextAttemptAt: sql`now() + interval '10 seconds'` })
      .where(eq(webhookDeliveries.id, d.id));
    const busy = await redeliver(sub.id, d.id);
    expect(busy.status).toBe(409);
    expect(errorCode(busy)).toBe("conflict");
    expect(await redeliveryAudits(d.id)).toEqual([]);

    // A lease that ran out (the worker died) no longer blocks.
    await h.gw.db.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: sql`now() - interval '1 second'` })
      .where(eq(webhookDeliveries.id, d.id));
    expect((await redeliver(sub.id, d.id)).status).toBe(202);
    await waitFor(async () => (await oneDelivery(sub.id, "delivered")).attempts === 3);

    const gone = await h.receiver(() => 410);
    const disabled = await h.create(gone.url);
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    const dead = await oneDelivery(disabled.id, "abandoned");
    const refused = await redeliver(disabled.id, dead.id);
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe("conflict");
    expect((refused.body as { message: string }).message).toMatch(/disabled/);
    expect(gone.received).toHaveLength(1);
  });

  it("asking again while a redelivery is queued changes nothing", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    const d = await oneDelivery(sub.id, "delivered");
    // A redelivery already asked for, its job not yet run.
    await h.gw.db.db
      .update(webhookDeliveries)
      .set({ status: "pending", redeliveryRequested: true })
      .where(eq(webhookDeliveries.id, d.id));
    const res = await redeliver(sub.id, d.id);
    expect(res.status).toBe(202);
    expect((res.body as TDeliveryBody).status).toBe("pending");
    expect(await redeliveryAudits(d.id)).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.received).toHaveLength(1);
  });

  it("answers 404 for another subscription's, another organization's or an unknown delivery; 403 for members and keys", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    const other = await h.create(rx.url, ["finding.new"]);
    await emitEvent(h.gw.db.db, h.jobs, { orgId: h.admin.orgId, type: "policy.violation", data: violation });
    const d = await oneDelivery(sub.id, "delivered");

    for (const res of [
      await redeliver(other.id, d.id),
      await redeliver(sub.id, "dlv_doesnotexist"),
      await redeliver("whk_doesnotexist", d.id),
    ]) {
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBe("not_found");
    }
    const stranger = await h.gw.createActor({ role: "OWNER" });
    const foreign = await redeliver(sub.id, d.id, stranger.cookie);
    expect(foreign.status).toBe(404);

    const member = await h.gw.createActor({ role: "member", orgId: h.admin.orgId });
    const byMember = await redeliver(sub.id, d.id, member.cookie);
    expect(byMember.status).toBe(403);
    expect(errorCode(byMember)).toBe("forbidden");
    const byKey = await h.gw.request("POST", `/api/webhooks/${sub.id}/deliveries/${d.id}/redeliver`, {
      key: h.admin.key,
    });
    expect(byKey.status).toBe(403);
    expect(errorCode(byKey)).toBe("session_required");

    const wrongMethod = await h.gw.request("GET", `/api/webhooks/${sub.id}/deliveries/${d.id}/redeliver`, {
      cookie: h.admin.cookie,
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    await new Promise((r) => setTimeout(r, 100));
    expect(rx.received).toHaveLength(1);
    expect(await redeliveryAudits(d.id)).toEqual([]);
  });
});
