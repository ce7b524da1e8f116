import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organizations, webhookDeliveries, webhookSubscriptions } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { createInProcessQueue } from "@posture/jobs";
import type { TEnqueueOptions, TJobQueue, TLogger, TRuntime } from "@posture/platform";
import type { TEventType } from "../event-types";
import { emitEvent } from "../services/emit-event";
import { createSubscription } from "../services/subscriptions";
import type { TResolver } from "../ssrf";
import {
  startReceiver,
  verifyServiceSignature,
  verifyStandardWebhook,
  waitFor,
  type TReceiver,
} from "../testing";
import type { TBackoff } from "./backoff";
import { deliverWebhook, type TDeliverDeps } from "./deliver";
import { webhookJobDefinitions } from "./definitions";
import { requeueOverdueDeliveries } from "./sweep";

const silent: TLogger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };
const actor = { userId: "usr_test", userEmail: "admin@example.test" };

let tdb: TestDb;
const receivers: TReceiver[] = [];
const queues: TJobQueue[] = [];
const runtime: TRuntime = {
  encryptionKey: randomBytes(32),
  publicUrl: "http://localhost",
  webhookAllowPrivateTargets: true,
};

beforeAll(async () => {
  tdb = await createTestDb();
});

afterAll(async () => {
  await Promise.all(queues.map((q) => q.close()));
  await Promise.all(receivers.map((r) => r.close()));
  await tdb.drop();
});

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

async function org() {
  const [o] = await tdb.db
    .insert(organizations)
    .values({ name: `Org ${randomBytes(3).toString("hex")}`, plan: "business" })
    .returning();
  if (!o) throw new Error("org insert failed");
  return o.id;
}

/** A real in-process queue running the real webhook handlers, with test-sized waits. */
function liveQueue(
  o: { backoff?: TBackoff; runtime?: TRuntime; resolve?: TResolver; timeoutMs?: number } = {},
) {
  // The handlers enqueue their own retries, so the registry is read lazily, after the queue exists.
  const jobs: TJobQueue = createInProcessQueue(() =>
    webhookJobDefinitions({
      db: tdb.db,
      runtime: o.runtime ?? runtime,
      jobs,
      log: silent,
      backoff: o.backoff ?? (() => 20),
      resolve: o.resolve,
      timeoutMs: o.timeoutMs,
    }),
  );
  queues.push(jobs);
  return jobs;
}

/** Records what the handler schedules without running it, to inspect one attempt at a time. */
function recordingQueue() {
  const calls: Array<{ name: string; data: unknown; opts: TEnqueueOptions | undefined }> = [];
  const q: TJobQueue = {
    enqueue: async (name, data, opts) => void calls.push({ name, data, opts }),
    runAndWait: async () => {
      throw new Error("not used");
    },
    ping: async () => {},
    close: async () => {},
  };
  return { q, calls };
}

async function subscribe(
  orgId: string,
  url: string,
  events: TEventType[] = ["policy.violation"],
  resolve?: TResolver,
) {
  return createSubscription(
    tdb.db,
    { orgId, url, events, actor },
    { encryptionKey: runtime.encryptionKey, allowPrivateTargets: true, resolve },
  );
}

const violation = { ruleId: "rule-1", severity: "HIGH" as const, count: 3 };

async function delivery(id: string) {
  const [row] = await tdb.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row;
}

const waitForStatus = (id: string, status: string) =>
  waitFor(async () => ((await delivery(id))?.status === status ? delivery(id) : undefined));

describe("webhook delivery", () => {
  it("POSTs the signed body; both signatures verify with independent libraries", async () => {
    const orgId = await org();
    const rx = await receiver();
    const sub = await subscribe(orgId, rx.url);
    const jobs = liveQueue();
    const { eventId, deliveryIds } = await emitEvent(tdb.db, jobs, {
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

  it("fans out only to active subscriptions of the organization that asked for the type", async () => {
    const orgId = await org();
    const otherOrg = await org();
    const rx = await receiver();
    const wanted = await subscribe(orgId, rx.url, ["policy.violation", "finding.new"]);
    await subscribe(orgId, rx.url, ["scan.completed"]);
    await subscribe(otherOrg, rx.url, ["policy.violation"]);
    const disabled = await subscribe(orgId, rx.url, ["policy.violation"]);
    await tdb.db
      .update(webhookSubscriptions)
      .set({ status: "disabled" })
      .where(eq(webhookSubscriptions.id, disabled.id));
    const { q, calls } = recordingQueue();
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    expect(deliveryIds).toHaveLength(1);
    const row = await delivery(deliveryIds[0] ?? "");
    expect(row).toMatchObject({
      subscriptionId: wanted.id,
      status: "pending",
      attempts: 0,
      event: "policy.violation",
    });
    expect(calls).toEqual([
      { name: "webhook.deliver", data: { deliveryId: deliveryIds[0] }, opts: { jobId: deliveryIds[0] } },
    ]);
  });

  it("validates event data against the spec's fields before recording anything", async () => {
    const orgId = await org();
    const { q, calls } = recordingQueue();
    const bad = [
      { ...violation, extra: "leak" },
      { ruleId: "r", count: 1 },
      { ...violation, severity: "SEVERE" },
      { ...violation, count: 1.5 },
    ];
    for (const data of bad) {
      await expect(
        emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: data as typeof violation }),
      ).rejects.toThrow();
    }
    expect(calls).toHaveLength(0);
  });

  it("retries after a 500 and delivers the same signed bytes", async () => {
    const orgId = await org();
    const rx = await receiver((_r, i) => (i === 0 ? 500 : 204));
    const sub = await subscribe(orgId, rx.url);
    const jobs = liveQueue();
    const { deliveryIds } = await emitEvent(tdb.db, jobs, {
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
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    const deps: TDeliverDeps = { db: tdb.db, runtime, jobs: q, log: silent, backoff: (n) => n * 60_000 };
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
    const { deliveryIds } = await emitEvent(tdb.db, jobs, {
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
    const first = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const second = await emitEvent(tdb.db, q, {
      orgId,
      type: "policy.violation",
      data: { ...violation, count: 4 },
    });
    const deps: TDeliverDeps = { db: tdb.db, runtime, jobs: q, log: silent };
    expect(await deliverWebhook(deps, first.deliveryIds[0] ?? "")).toBe("gone");
    const [s] = await tdb.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id));
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
    const third = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
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
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    expect(await deliverWebhook({ db: tdb.db, runtime, jobs: q, log: silent }, id)).toBe("retry-scheduled");
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
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    await deliverWebhook({ db: tdb.db, runtime, jobs: q, log: silent, timeoutMs: 300 }, id);
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
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    const deps: TDeliverDeps = { db: tdb.db, runtime, jobs: q, log: silent };
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
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    await tdb.db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id));
    expect(await deliverWebhook({ db: tdb.db, runtime, jobs: q, log: silent }, deliveryIds[0] ?? "")).toBe(
      "missing",
    );
    expect(rx.received).toHaveLength(0);
  });

  it("re-queues deliveries whose job was lost", async () => {
    const orgId = await org();
    const rx = await receiver();
    await subscribe(orgId, rx.url);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    await tdb.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(Date.now() - 5 * 60_000) })
      .where(eq(webhookDeliveries.id, id));
    const jobs = liveQueue();
    expect(await requeueOverdueDeliveries(tdb.db, jobs)).toBeGreaterThanOrEqual(1);
    expect(await waitForStatus(id, "delivered")).toMatchObject({ attempts: 1 });
    expect(rx.received).toHaveLength(1);
  });
});

describe("SSRF at delivery time", () => {
  const strict: TRuntime = { ...runtime, webhookAllowPrivateTargets: false };

  it("refuses a name that now resolves to loopback, and sends nothing", async () => {
    const orgId = await org();
    const rx = await receiver();
    await subscribe(orgId, `http://localhost:${rx.port}/hook`);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    expect(
      await deliverWebhook({ db: tdb.db, runtime: strict, jobs: q, log: silent, backoff: () => null }, id),
    ).toBe("abandoned");
    const row = await delivery(id);
    expect(row).toMatchObject({ status: "abandoned", attempts: 1, lastStatusCode: null });
    expect(row?.lastError).toMatch(/^target refused: host localhost resolves to a loopback address/);
    expect(rx.received).toHaveLength(0);
  });

  it("re-checks DNS: a name that was public at creation and rebinds to 127.0.0.1 is refused", async () => {
    const orgId = await org();
    const rx = await receiver();
    let answer = "93.184.216.34";
    const resolve: TResolver = async () => [{ address: answer, family: 4 }];
    await createSubscription(
      tdb.db,
      { orgId, url: `http://rebind.example:${rx.port}/hook`, events: ["policy.violation"], actor },
      { encryptionKey: runtime.encryptionKey, allowPrivateTargets: false, resolve },
    );
    answer = "127.0.0.1";
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    await deliverWebhook({ db: tdb.db, runtime: strict, jobs: q, log: silent, resolve }, id);
    expect((await delivery(id))?.lastError).toMatch(
      /rebind\.example resolves to a loopback address \(127\.0\.0\.1\)/,
    );
    expect(rx.received).toHaveLength(0);
  });

  it("connects to the vetted address, never resolving the name a second time", async () => {
    const orgId = await org();
    const rx = await receiver();
    // .test never resolves in real DNS: the request can only arrive through the pinned address.
    const resolve: TResolver = async (host) =>
      host === "pinned.test" ? [{ address: "127.0.0.1", family: 4 }] : [];
    await subscribe(orgId, `http://pinned.test:${rx.port}/hook`, ["policy.violation"], resolve);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    expect(await deliverWebhook({ db: tdb.db, runtime, jobs: q, log: silent, resolve }, id)).toBe(
      "delivered",
    );
    expect(rx.received[0]?.headers.host).toBe(`pinned.test:${rx.port}`);
  });

  it("pins https targets too: TLS is attempted against the vetted address", async () => {
    const orgId = await org();
    // A plain-HTTP listener: the TLS handshake fails, but only after connecting to 127.0.0.1.
    const rx = await receiver();
    const resolve: TResolver = async (host) =>
      host === "tls.test" ? [{ address: "127.0.0.1", family: 4 }] : [];
    await subscribe(orgId, `https://tls.test:${rx.port}/hook`, ["policy.violation"], resolve);
    const { q } = recordingQueue();
    const { deliveryIds } = await emitEvent(tdb.db, q, { orgId, type: "policy.violation", data: violation });
    const id = deliveryIds[0] ?? "";
    await deliverWebhook({ db: tdb.db, runtime, jobs: q, log: silent, resolve, timeoutMs: 2_000 }, id);
    const row = await delivery(id);
    expect(row).toMatchObject({ status: "failed", lastStatusCode: null });
    expect(row?.lastError).toMatch(/EPROTO|SSL|ECONNRESET/);
    expect(row?.lastError).not.toMatch(/ENOTFOUND|EAI_AGAIN/);
  });
});
