import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, webhookDeliveries } from "@posture/db";
import { emitEvent, waitFor } from "@posture/webhooks/testing";
import { errorCode, freshIp } from "../helpers";
import { useWebhookGateway, violation, type TWebhookBody } from "./harness";

const h = useWebhookGateway();

describe("webhook subscriptions API", () => {
  it("creates a subscription (ADMIN) and shows the whsec_ secret exactly once", async () => {
    const rx = await h.receiver();
    const created = await h.create(rx.url, ["scan.completed", "finding.new"]);
    expect(created).toMatchObject({
      url: rx.url,
      events: ["scan.completed", "finding.new"],
      status: "active",
      disabledReason: null,
    });
    expect(created.id).toMatch(/^whk_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(new Date(created.createdAt).toString()).not.toBe("Invalid Date");

    const list = await h.gw.request("GET", "/api/webhooks", { cookie: h.admin.cookie });
    expect(list.status).toBe(200);
    const listed = (list.body as { webhooks: TWebhookBody[] }).webhooks.find((w) => w.id === created.id);
    expect(listed).toMatchObject({ url: rx.url, status: "active" });
    expect(listed).not.toHaveProperty("secret");
    expect(list.text).not.toContain(created.secret);
    expect(list.text).not.toContain(created.secret.slice(6));

    const [audit] = await h.gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, h.admin.orgId), eq(auditLog.target, created.id)));
    expect(audit).toMatchObject({ action: "WEBHOOK_CREATED", userEmail: h.admin.user.email });
  });

  it("deletes a subscription (audited); it is gone from the list and its log", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    const del = await h.gw.request("DELETE", `/api/webhooks/${sub.id}`, { cookie: h.admin.cookie });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    const list = await h.gw.request("GET", "/api/webhooks", { cookie: h.admin.cookie });
    expect((list.body as { webhooks: TWebhookBody[] }).webhooks.map((w) => w.id)).not.toContain(sub.id);
    expect(
      (await h.gw.request("GET", `/api/webhooks/${sub.id}/deliveries`, { cookie: h.admin.cookie })).status,
    ).toBe(404);
    expect((await h.gw.request("DELETE", `/api/webhooks/${sub.id}`, { cookie: h.admin.cookie })).status).toBe(
      404,
    );
    const actions = await h.gw.db.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, h.admin.orgId), eq(auditLog.target, sub.id)));
    expect(actions.map((a) => a.action).sort()).toEqual(["WEBHOOK_CREATED", "WEBHOOK_DELETED"]);
    // Events after deletion reach nobody.
    const { deliveryIds } = await emitEvent(h.gw.db.db, h.jobs, {
      orgId: h.admin.orgId,
      type: "policy.violation",
      data: violation,
    });
    const toDeleted = await h.gw.db.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, sub.id));
    expect(toDeleted).toEqual([]);
    await waitFor(async () => {
      const rows = await h.gw.db.db
        .select({ status: webhookDeliveries.status })
        .from(webhookDeliveries)
        .where(inArray(webhookDeliveries.id, deliveryIds.length > 0 ? deliveryIds : ["none"]));
      return rows.every((r) => r.status !== "pending");
    });
    expect(rx.received).toHaveLength(0);
  });

  it("caps subscriptions at 25 per organization, also under concurrent creation (409 conflict)", async () => {
    const admin = await h.gw.createActor({ role: "ADMIN" });
    const create = (i: number) =>
      h.gw.request("POST", "/api/webhooks", {
        cookie: admin.cookie,
        body: { url: `http://127.0.0.1:9/hook-${i}`, events: ["scan.completed"] },
        ip: freshIp(),
      });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => create(i)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(25);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ error: "conflict", message: expect.stringContaining("25") });
    }
    // Deleting one makes room for one.
    const list = await h.gw.request("GET", "/api/webhooks", { cookie: admin.cookie, ip: freshIp() });
    const first = (list.body as { webhooks: TWebhookBody[] }).webhooks[0];
    expect(
      (await h.gw.request("DELETE", `/api/webhooks/${first?.id}`, { cookie: admin.cookie, ip: freshIp() }))
        .status,
    ).toBe(200);
    expect((await create(99)).status).toBe(201);
    expect((await create(100)).status).toBe(409);
  });

  it("answers 404 for another organization's subscription, and leaves it alone", async () => {
    const rx = await h.receiver();
    const sub = await h.create(rx.url);
    const stranger = await h.gw.createActor({ role: "OWNER" });
    const del = await h.gw.request("DELETE", `/api/webhooks/${sub.id}`, { cookie: stranger.cookie });
    expect(del.status).toBe(404);
    expect(errorCode(del)).toBe("not_found");
    const log = await h.gw.request("GET", `/api/webhooks/${sub.id}/deliveries`, { cookie: stranger.cookie });
    expect(log.status).toBe(404);
    const theirs = await h.gw.request("GET", "/api/webhooks", { cookie: stranger.cookie });
    expect((theirs.body as { webhooks: unknown[] }).webhooks).toEqual([]);
    const mine = await h.gw.request("GET", "/api/webhooks", { cookie: h.admin.cookie });
    expect((mine.body as { webhooks: TWebhookBody[] }).webhooks.map((w) => w.id)).toContain(sub.id);
  });

  it("refuses members (403) and API keys (session only)", async () => {
    const member = await h.gw.createActor({ role: "member", orgId: h.admin.orgId });
    const res = await h.gw.request("POST", "/api/webhooks", {
      cookie: member.cookie,
      body: { url: "http://127.0.0.1:9/x", events: ["policy.violation"] },
    });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe("forbidden");
    expect((await h.gw.request("GET", "/api/webhooks", { cookie: member.cookie })).status).toBe(403);
    const byKey = await h.gw.request("GET", "/api/webhooks", { key: h.admin.key });
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
    const res = await h.gw.request("POST", "/api/webhooks", { cookie: h.admin.cookie, body });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe("invalid_input");
    const details = (res.body as { details: Array<{ path: string }> }).details;
    expect(details.map((d) => d.path.split(".")[0])).toContain(path);
  });

  it("documents the five operations in the OpenAPI document", async () => {
    const res = await h.gw.request("GET", "/api/openapi.json");
    const paths = (res.body as { paths: Record<string, Record<string, unknown>> }).paths;
    expect(Object.keys(paths["/webhooks"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(paths["/webhooks/{id}"] ?? {})).toEqual(["delete"]);
    expect(Object.keys(paths["/webhooks/{id}/deliveries"] ?? {})).toEqual(["get"]);
    expect(Object.keys(paths["/webhooks/{id}/deliveries/{deliveryId}/redeliver"] ?? {})).toEqual(["post"]);
  });
});
