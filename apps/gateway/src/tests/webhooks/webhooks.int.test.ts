import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, webhookDeliveries } from "@posture/db";
import { createInProcessQueue } from "@posture/jobs";
import type { TJobQueue, TLogger } from "@posture/platform";
import { emitEvent, webhookJobDefinitions } from "@posture/webhooks";
import {
  startReceiver,
  verifyServiceSignature,
  verifyStandardWebhook,
  waitFor,
  type TReceiver,
} from "@posture/webhooks/testing";
import { startTestGateway, type TTestGateway } from "../../testing";
import { errorCode } from "../helpers";

const silent: TLogger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

/**
 * A gateway whose queue runs the real webhook handlers. The registry needs the gateway's own
 * database and runtime, which exist only once it has started: the queue reads it lazily.
 */
async function gatewayWithWebhookJobs(env: Record<string, string>) {
  const started: { gw?: TTestGateway } = {};
  const jobs = createInProcessQueue(() => {
    if (!started.gw) throw new Error("gateway not started");
    return webhookJobDefinitions({
      db: started.gw.db.db,
      runtime: started.gw.gateway.deps.runtime,
      jobs,
      log: silent,
      // Test-sized back-off: three attempts, 20 ms apart.
      backoff: (failed) => (failed < 3 ? 20 : null),
    });
  });
  const gw = await startTestGateway({ env, jobs });
  started.gw = gw;
  return { gw, jobs };
}

type TWebhookBody = {
  id: string;
  url: string;
  events: string[];
  status: string;
  disabledReason: string | null;
  createdAt: string;
  secret?: string;
};
type TDeliveriesBody = {
  rows: Array<{
    id: string;
    eventId: string;
    event: string;
    status: string;
    attempts: number;
    lastStatusCode: number | null;
    lastError: string | null;
    nextAttemptAt: string | null;
    deliveredAt: string | null;
    createdAt: string;
  }>;
  total: number;
  limit: number;
  offset: number;
};

const violation = { ruleId: "rule-7", severity: "CRITICAL" as const, count: 2 };

describe("webhooks API (private targets allowed, as in local development)", () => {
  let gw: TTestGateway;
  let jobs: TJobQueue;
  const receivers: TReceiver[] = [];
  let admin: Awaited<ReturnType<TTestGateway["createActor"]>>;

  beforeAll(async () => {
    ({ gw, jobs } = await gatewayWithWebhookJobs({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }));
    admin = await gw.createActor({ role: "ADMIN" });
  });

  afterAll(async () => {
    await jobs.close();
    await Promise.all(receivers.map((r) => r.close()));
    await gw.close();
  });

  async function receiver(...args: Parameters<typeof startReceiver>) {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  }

  async function create(url: string, events = ["policy.violation"], cookie = admin.cookie) {
    const res = await gw.request("POST", "/api/webhooks", { cookie, body: { url, events } });
    expect(res.status).toBe(201);
    return res.body as TWebhookBody & { secret: string };
  }

  const deliveries = async (id: string, query = "", cookie = admin.cookie) => {
    const res = await gw.request("GET", `/api/webhooks/${id}/deliveries${query}`, { cookie });
    expect(res.status).toBe(200);
    return res.body as TDeliveriesBody;
  };

  it("creates a subscription (ADMIN) and shows the whsec_ secret exactly once", async () => {
    const rx = await receiver();
    const created = await create(rx.url, ["scan.completed", "finding.new"]);
    expect(created).toMatchObject({
      url: rx.url,
      events: ["scan.completed", "finding.new"],
      status: "active",
      disabledReason: null,
    });
    expect(created.id).toMatch(/^whk_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(new Date(created.createdAt).toString()).not.toBe("Invalid Date");

    const list = await gw.request("GET", "/api/webhooks", { cookie: admin.cookie });
    expect(list.status).toBe(200);
    const listed = (list.body as { webhooks: TWebhookBody[] }).webhooks.find((w) => w.id === created.id);
    expect(listed).toMatchObject({ url: rx.url, status: "active" });
    expect(listed).not.toHaveProperty("secret");
    expect(list.text).not.toContain(created.secret);
    expect(list.text).not.toContain(created.secret.slice(6));

    const [audit] = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, admin.orgId), eq(auditLog.target, created.id)));
    expect(audit).toMatchObject({ action: "WEBHOOK_CREATED", userEmail: admin.user.email });
  });

  it("delivers a signed event that independent verifiers accept, and logs the delivery", async () => {
    const rx = await receiver();
    const sub = await create(rx.url);
    const { eventId } = await emitEvent(gw.db.db, jobs, {
      orgId: admin.orgId,
      type: "policy.violation",
      data: violation,
    });
    await waitFor(async () => (await deliveries(sub.id)).rows[0]?.status === "delivered");

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

    const log = await deliveries(sub.id);
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
    const rx = await receiver((_r, i) => (i === 0 ? 500 : 200));
    const sub = await create(rx.url);
    await emitEvent(gw.db.db, jobs, { orgId: admin.orgId, type: "policy.violation", data: violation });
    await waitFor(async () => (await deliveries(sub.id)).rows[0]?.status === "delivered");
    expect((await deliveries(sub.id)).rows[0]).toMatchObject({ attempts: 2, lastStatusCode: 200 });
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1]?.body).toBe(rx.received[0]?.body);
  });

  it("disables the subscription when the receiver answers 410", async () => {
    const rx = await receiver(() => 410);
    const sub = await create(rx.url);
    await emitEvent(gw.db.db, jobs, { orgId: admin.orgId, type: "policy.violation", data: violation });
    await waitFor(async () => (await deliveries(sub.id)).rows[0]?.status === "abandoned");
    const list = await gw.request("GET", "/api/webhooks", { cookie: admin.cookie });
    const listed = (list.body as { webhooks: TWebhookBody[] }).webhooks.find((w) => w.id === sub.id);
    expect(listed?.status).toBe("disabled");
    expect(listed?.disabledReason).toMatch(/410/);
    expect(rx.received).toHaveLength(1);
  });

  it("does not follow a 302: the attempt fails and the redirect target sees nothing", async () => {
    const elsewhere = await receiver();
    const rx = await receiver((_r, _i, res) => {
      res.setHeader("Location", elsewhere.url);
      return 302;
    });
    const sub = await create(rx.url);
    await emitEvent(gw.db.db, jobs, { orgId: admin.orgId, type: "policy.violation", data: violation });
    await waitFor(async () => (await deliveries(sub.id)).rows[0]?.status === "abandoned");
    const row = (await deliveries(sub.id)).rows[0];
    expect(row).toMatchObject({ attempts: 3, lastStatusCode: 302 });
    expect(row?.lastError).toMatch(/redirects are not followed/);
    expect(rx.received).toHaveLength(3);
    expect(elsewhere.received).toHaveLength(0);
  });

  it("pages the delivery log with limit and offset (max 200)", async () => {
    const rx = await receiver();
    const sub = await create(rx.url, ["finding.resolved"]);
    for (let i = 0; i < 3; i++) {
      await emitEvent(gw.db.db, jobs, {
        orgId: admin.orgId,
        type: "finding.resolved",
        data: { findingId: `f${i}`, title: `Finding ${i}`, link: "https://app.example.test/f" },
      });
    }
    await waitFor(
      async () => (await deliveries(sub.id)).rows.filter((r) => r.status === "delivered").length === 3,
    );
    const page = await deliveries(sub.id, "?limit=2&offset=1");
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.rows).toHaveLength(2);
    const all = await deliveries(sub.id, "?limit=200");
    expect(all.rows.slice(1).map((r) => r.id)).toEqual(page.rows.map((r) => r.id));
    const tooMany = await gw.request("GET", `/api/webhooks/${sub.id}/deliveries?limit=201`, {
      cookie: admin.cookie,
    });
    expect(tooMany.status).toBe(400);
    expect(errorCode(tooMany)).toBe("invalid_input");
  });

  it("deletes a subscription (audited); it is gone from the list and its log", async () => {
    const rx = await receiver();
    const sub = await create(rx.url);
    const del = await gw.request("DELETE", `/api/webhooks/${sub.id}`, { cookie: admin.cookie });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    const list = await gw.request("GET", "/api/webhooks", { cookie: admin.cookie });
    expect((list.body as { webhooks: TWebhookBody[] }).webhooks.map((w) => w.id)).not.toContain(sub.id);
    expect(
      (await gw.request("GET", `/api/webhooks/${sub.id}/deliveries`, { cookie: admin.cookie })).status,
    ).toBe(404);
    expect((await gw.request("DELETE", `/api/webhooks/${sub.id}`, { cookie: admin.cookie })).status).toBe(
      404,
    );
    const actions = await gw.db.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, admin.orgId), eq(auditLog.target, sub.id)));
    expect(actions.map((a) => a.action).sort()).toEqual(["WEBHOOK_CREATED", "WEBHOOK_DELETED"]);
    // Events after deletion reach nobody.
    const { deliveryIds } = await emitEvent(gw.db.db, jobs, {
      orgId: admin.orgId,
      type: "policy.violation",
      data: violation,
    });
    const toDeleted = await gw.db.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, sub.id));
    expect(toDeleted).toEqual([]);
    await waitFor(async () => {
      const rows = await gw.db.db
        .select({ status: webhookDeliveries.status })
        .from(webhookDeliveries)
        .where(inArray(webhookDeliveries.id, deliveryIds.length > 0 ? deliveryIds : ["none"]));
      return rows.every((r) => r.status !== "pending");
    });
    expect(rx.received).toHaveLength(0);
  });

  it("answers 404 for another organization's subscription, and leaves it alone", async () => {
    const rx = await receiver();
    const sub = await create(rx.url);
    const stranger = await gw.createActor({ role: "OWNER" });
    const del = await gw.request("DELETE", `/api/webhooks/${sub.id}`, { cookie: stranger.cookie });
    expect(del.status).toBe(404);
    expect(errorCode(del)).toBe("not_found");
    const log = await gw.request("GET", `/api/webhooks/${sub.id}/deliveries`, { cookie: stranger.cookie });
    expect(log.status).toBe(404);
    const theirs = await gw.request("GET", "/api/webhooks", { cookie: stranger.cookie });
    expect((theirs.body as { webhooks: unknown[] }).webhooks).toEqual([]);
    const mine = await gw.request("GET", "/api/webhooks", { cookie: admin.cookie });
    expect((mine.body as { webhooks: TWebhookBody[] }).webhooks.map((w) => w.id)).toContain(sub.id);
  });

  it("refuses members (403) and API keys (session only)", async () => {
    const member = await gw.createActor({ role: "member", orgId: admin.orgId });
    const res = await gw.request("POST", "/api/webhooks", {
      cookie: member.cookie,
      body: { url: "http://127.0.0.1:9/x", events: ["policy.violation"] },
    });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe("forbidden");
    expect((await gw.request("GET", "/api/webhooks", { cookie: member.cookie })).status).toBe(403);
    const byKey = await gw.request("GET", "/api/webhooks", { key: admin.key });
    expect(byKey.status).toBe(403);
    expect(errorCode(byKey)).toBe("session_required");
  });

  it.each([
    [{ url: "http://127.0.0.1:9/x", events: [] }, "events"],
    [{ url: "http://127.0.0.1:9/x", events: ["policy.violation", "policy.violation"] }, "events"],
    [{ url: "http://127.0.0.1:9/x", events: ["user.created"] }, "events"],
    [{ events: ["policy.violation"] }, "url"],
    [{ url: "ftp://127.0.0.1/x", events: ["policy.violation"] }, "url"],
  ])("rejects invalid input %j (400 on %s)", async (body, path) => {
    const res = await gw.request("POST", "/api/webhooks", { cookie: admin.cookie, body });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe("invalid_input");
    const details = (res.body as { details: Array<{ path: string }> }).details;
    expect(details.map((d) => d.path.split(".")[0])).toContain(path);
  });
});

describe("webhooks API SSRF guard (default: private targets refused)", () => {
  let gw: TTestGateway;
  let admin: Awaited<ReturnType<TTestGateway["createActor"]>>;

  beforeAll(async () => {
    gw = await startTestGateway();
    admin = await gw.createActor({ role: "OWNER" });
  });

  afterAll(async () => {
    await gw.close();
  });

  it.each([
    ["http://127.0.0.1/hook", "loopback"],
    ["http://10.0.0.1/hook", "private"],
    ["http://192.168.1.10:8080/hook", "private"],
    ["http://169.254.169.254/latest/meta-data/", "link-local"],
    ["http://[::1]/hook", "loopback"],
    ["http://[::ffff:127.0.0.1]/hook", "loopback"],
    ["http://[fd00::1]/hook", "unique-local"],
    ["http://100.64.0.1/hook", "shared"],
    ["http://0.0.0.0/hook", "unspecified"],
    ["http://localhost:3000/hook", "loopback"],
  ])("refuses %s with 400 invalid_input (%s)", async (url, cls) => {
    const res = await gw.request("POST", "/api/webhooks", {
      cookie: admin.cookie,
      body: { url, events: ["scan.completed"] },
    });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe("invalid_input");
    const body = res.body as { message: string; details: Array<{ path: string; message: string }> };
    expect(body.message).toMatch(/^Webhook URL refused: /);
    expect(body.details).toEqual([{ path: "url", message: expect.stringContaining(cls) }]);
  });

  it("refuses a host that does not resolve", async () => {
    const res = await gw.request("POST", "/api/webhooks", {
      cookie: admin.cookie,
      body: { url: "https://no-such-host.invalid/hook", events: ["scan.completed"] },
    });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toMatch(/could not be resolved/);
  });

  it("documents the four operations in the OpenAPI document", async () => {
    const res = await gw.request("GET", "/api/openapi.json");
    const paths = (res.body as { paths: Record<string, Record<string, unknown>> }).paths;
    expect(Object.keys(paths["/webhooks"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(paths["/webhooks/{id}"] ?? {})).toEqual(["delete"]);
    expect(Object.keys(paths["/webhooks/{id}/deliveries"] ?? {})).toEqual(["get"]);
  });

  it("creates nothing when refusing", async () => {
    const list = await gw.request("GET", "/api/webhooks", { cookie: admin.cookie });
    expect(list.body).toEqual({ webhooks: [] });
  });
});
