import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { partnerAccess, webhookDeliveries } from "@posture/db";
import type { TLogger } from "@posture/platform";
import { deliverWebhook, recordEvent } from "@posture/webhooks";
import { emitEvent, verifyServiceSignature, waitFor } from "@posture/webhooks/testing";
import { errorCode, freshIp } from "../helpers";
import { useWebhookGateway, type TWebhookBody } from "./harness";

// Partner webhooks (issue 17, item 6): a partner subscribes once with includeClients and receives
// each managed client's events, naming the client, signed with its own secret and logged in its
// own delivery log; nothing once the client withdraws its consent; includeClients is 400 for any
// other organization.

type TBody = {
  event: string;
  data: Record<string, unknown>;
  id: string;
  createdAt: string;
  client?: unknown;
};

const h = useWebhookGateway();
const silent: TLogger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

const findingNew = (n: number) => ({
  findingId: `fnd_${n}`,
  severity: "HIGH" as const,
  title: `Finding ${n}`,
  resource: "Roadmap.docx",
  link: "https://posture.example/findings/x",
});
const planned = {
  remediationId: "rem_1",
  status: "PLANNED" as const,
  origin: "manual" as const,
  dryRun: false,
  stepCount: 2,
  findingCount: 1,
  scoreBefore: 60,
  predictedScore: 70,
  plannedBy: "admin@msp.test",
  link: "https://posture.example/api/remediations/rem_1",
};

async function subscribe(cookie: string, url: string, events: string[], includeClients?: boolean) {
  return h.gw.request("POST", "/api/webhooks", {
    cookie,
    ip: freshIp(),
    body: { url, events, ...(includeClients === undefined ? {} : { includeClients }) },
  });
}

async function partnerWithClient(name: string) {
  const msp = await h.gw.createActor({ plan: "enterprise", isPartner: true });
  const client = await h.gw.createOrg({ plan: "business", name, managedByOrgId: msp.orgId });
  return { msp, client };
}

describe("partner webhooks: includeClients", () => {
  it("delivers a client's finding.new and remediation.planned to the partner, naming the client", async () => {
    const { msp, client } = await partnerWithClient("Alpha Ltd");
    const rx = await h.receiver();
    const created = await subscribe(msp.cookie, rx.url, ["finding.new", "remediation.planned"], true);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const hook = created.body as TWebhookBody & { secret: string; includeClients: boolean };
    expect(hook.includeClients).toBe(true);
    const listed = await h.gw.request("GET", "/api/webhooks", { cookie: msp.cookie, ip: freshIp() });
    expect(
      (listed.body as { webhooks: Array<{ id: string; includeClients: boolean }> }).webhooks,
    ).toContainEqual(expect.objectContaining({ id: hook.id, includeClients: true }));
    // A subscription of the partner without includeClients, and the client's own subscription.
    const own = await h.receiver();
    expect((await subscribe(msp.cookie, own.url, ["finding.new"])).status).toBe(201);
    const clientAdmin = await h.gw.createActor({ orgId: client.id, role: "ADMIN" });
    const clientRx = await h.receiver();
    expect((await subscribe(clientAdmin.cookie, clientRx.url, ["finding.new"])).status).toBe(201);

    await emitEvent(h.gw.db.db, h.jobs, { orgId: client.id, type: "finding.new", data: findingNew(1) });
    await emitEvent(h.gw.db.db, h.jobs, { orgId: client.id, type: "remediation.planned", data: planned });

    const got = await waitFor(() => Promise.resolve(rx.received.length >= 2 ? rx.received : null));
    const bodies = got.map((r) => JSON.parse(r.body) as TBody);
    expect(bodies.map((b) => b.event).sort()).toEqual(["finding.new", "remediation.planned"]);
    for (const b of bodies) expect(b.client).toEqual({ orgId: client.id, name: "Alpha Ltd" });
    expect(bodies.find((b) => b.event === "finding.new")?.data).toEqual(findingNew(1));
    for (const r of got) expect(await verifyServiceSignature(hook.secret, r)).toBe(true);

    // The client's own receiver gets the spec's body, without `client`; the partner's other
    // subscription (no includeClients) gets nothing.
    const mine = await waitFor(() => Promise.resolve(clientRx.received[0]));
    expect(JSON.parse(mine.body)).not.toHaveProperty("client");
    expect(own.received).toHaveLength(0);

    // The deliveries are the partner's: in its delivery log. A delivery is marked delivered once
    // the worker has read the receiver's answer, a moment after the receiver saw the request.
    const log = await waitFor(async () => {
      const l = await h.deliveries(hook.id, "", msp.cookie);
      return l.rows.every((d) => d.status === "delivered") ? l : null;
    });
    expect(log.total).toBe(2);
    expect(log.rows.map((d) => d.status)).toEqual(["delivered", "delivered"]);
    for (const d of log.rows) expect(d).toMatchObject({ clientOrgId: client.id });
  });

  it("stops with the client's consent, and never reaches another partner", async () => {
    const { msp, client } = await partnerWithClient("Beta GmbH");
    const rival = await h.gw.createActor({ plan: "enterprise", isPartner: true });
    const rx = await h.receiver();
    const rivalRx = await h.receiver();
    const hook = (await subscribe(msp.cookie, rx.url, ["finding.new"], true)).body as { id: string };
    expect((await subscribe(rival.cookie, rivalRx.url, ["finding.new"], true)).status).toBe(201);

    await emitEvent(h.gw.db.db, h.jobs, { orgId: client.id, type: "finding.new", data: findingNew(2) });
    await waitFor(() => Promise.resolve(rx.received.length === 1));

    // Recorded before the withdrawal, sent after it: abandoned, not sent.
    const pending = await h.gw.db.db.transaction((tx) =>
      recordEvent(tx, { orgId: client.id, type: "finding.new", data: findingNew(3) }),
    );
    expect(pending.deliveryIds).toHaveLength(1);
    await h.gw.db.db
      .update(partnerAccess)
      .set({ withdrawnAt: new Date() })
      .where(eq(partnerAccess.clientOrgId, client.id));
    const outcome = await deliverWebhook(
      { db: h.gw.db.db, runtime: h.gw.gateway.deps.runtime, jobs: h.jobs, log: silent },
      pending.deliveryIds[0] ?? "",
    );
    expect(outcome).toBe("client-withdrawn");
    const [row] = await h.gw.db.db
      .select({ status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, pending.deliveryIds[0] ?? ""));
    expect(row?.status).toBe("abandoned");

    // After the withdrawal nothing more is recorded for the partner.
    const after = await emitEvent(h.gw.db.db, h.jobs, {
      orgId: client.id,
      type: "finding.new",
      data: findingNew(4),
    });
    expect(after.deliveryIds).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.received).toHaveLength(1);
    expect(rivalRx.received).toHaveLength(0);
    const log = await h.deliveries(hook.id, "", msp.cookie);
    expect(log.rows.map((d) => d.status).sort()).toEqual(["abandoned", "delivered"]);

    // Consent granted again: the partner hears from the client again.
    await h.gw.db.db
      .update(partnerAccess)
      .set({ withdrawnAt: null })
      .where(eq(partnerAccess.clientOrgId, client.id));
    await emitEvent(h.gw.db.db, h.jobs, { orgId: client.id, type: "finding.new", data: findingNew(5) });
    await waitFor(() => Promise.resolve(rx.received.length === 2));
  });

  it("refuses includeClients for an organization that is not a partner, and validates it", async () => {
    const rx = await h.receiver();
    const plain = await h.gw.createActor({ plan: "enterprise" });
    const refused = await subscribe(plain.cookie, rx.url, ["finding.new"], true);
    expect(refused.status).toBe(400);
    expect(errorCode(refused)).toBe("invalid_input");
    expect(refused.body).toMatchObject({ details: [{ path: "includeClients" }] });
    // A managed client cannot widen its own subscription to anyone's clients either.
    const { client } = await partnerWithClient("Gamma Inc");
    const clientAdmin = await h.gw.createActor({ orgId: client.id, role: "ADMIN" });
    expect((await subscribe(clientAdmin.cookie, rx.url, ["finding.new"], true)).status).toBe(400);
    const off = await subscribe(plain.cookie, rx.url, ["finding.new"], false);
    expect(off.status).toBe(201);
    expect(off.body).toMatchObject({ includeClients: false });
    const { msp } = await partnerWithClient("Delta AG");
    const bad = await h.gw.request("POST", "/api/webhooks", {
      cookie: msp.cookie,
      ip: freshIp(),
      body: { url: rx.url, events: ["finding.new"], includeClients: "yes" },
    });
    expect(bad.status).toBe(400);
  });
});
