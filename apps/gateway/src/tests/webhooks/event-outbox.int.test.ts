import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { seedWorkspace } from "@posture/compliance/testing";
import { anomalies, connectors, events, incidents, partnerReports, type Db } from "@posture/db";
import { buildScheduledReport, sweepClientHealth } from "@posture/partner";
import { resolveApiKey, routeCatalog, type TJobQueue } from "@posture/platform";
import { runBehaviourRefresh } from "@posture/ueba";
import { requeueOverdueDeliveries } from "@posture/webhooks";
import { waitFor } from "@posture/webhooks/testing";
import { appRouter } from "../../router";
import { contextFactory } from "../../trpc-handlers";
import { burst, demoConnector, insertEvents, steadyPopulation } from "../detection/seed";
import { deadQueue, killedAfterCommit } from "./crash";
import { useWebhookGateway } from "./harness";

// Every producer of events other than the scan: the process is killed right after the change
// it announces commits (nothing it meant to do afterwards happens, nothing is dispatched), then
// the outbox relay (the webhook sweep) runs in a fresh process and the receiver gets the event.

type TDelivered = { event: string; data: Record<string, unknown>; id: string };
type TActor = { orgId: string; key: string; cookie: string };

const h = useWebhookGateway();

/** The outbox relay, a minute later (the clock moved): queues what the dead process left. */
async function relay(): Promise<number> {
  await h.gw.db.db.execute(
    sql`update webhook_deliveries set next_attempt_at = now() - interval '2 minutes' where status = 'pending'`,
  );
  return requeueOverdueDeliveries(h.gw.db.db, h.jobs);
}

async function subscribed(a: TActor, types: string[]) {
  const rx = await h.receiver();
  await h.create(rx.url, types, a.cookie);
  const of = (type: string) =>
    rx.received.map((r) => JSON.parse(r.body) as TDelivered).filter((d) => d.event === type);
  return { rx, of };
}

/** Calls the procedure of a REST route the way the gateway does, in a process with `db` and `jobs`. */
async function callRoute(a: TActor, db: Db, jobs: TJobQueue, method: string, path: string, input: unknown) {
  const resolved = await resolveApiKey(h.gw.db.db, a.key);
  if (!resolved.ok) throw new Error("test key did not resolve");
  const deps = h.gw.gateway.deps;
  const ctx = contextFactory({ ...deps, db: { ...deps.db, db }, requestDb: db, jobs })({
    req: {
      principal: resolved.principal,
      credentialFailure: null,
      clientIp: "127.0.0.1",
      requestId: "crash-test",
      get: () => undefined,
      socket: {},
    },
  });
  const key = routeCatalog(appRouter).at(method, path)?.key;
  if (!key) throw new Error(`no procedure for ${method} ${path}`);
  let node: unknown = appRouter.createCaller({ ...ctx, publishCredentialChanges: async () => {} });
  for (const part of key.split(".")) node = (node as Record<string, unknown>)[part];
  return (node as (i: unknown) => Promise<unknown>)(input);
}

/** Runs `fn` as the killed process would: whatever it throws once dead is the process going away. */
async function killed(fn: () => Promise<unknown>, isDead: () => boolean): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!isDead()) throw err;
  }
  expect(isDead()).toBe(true);
}

describe("events survive a crash between the change's commit and dispatch", { timeout: 120_000 }, () => {
  it("incident.created and incident.updated", async () => {
    const a = await h.gw.createActor({ plan: "business" });
    const { of } = await subscribed(a, ["incident.created", "incident.updated"]);

    const dying = killedAfterCommit(h.gw.db.db);
    await killed(
      () =>
        callRoute(a, dying.db, deadQueue(h.jobs), "POST", "/incidents", {
          title: "Leaked payroll sheet",
          priority: "P2",
          findingIds: [],
        }),
      dying.isDead,
    );
    const [incident] = await h.gw.db.db.select().from(incidents).where(eq(incidents.orgId, a.orgId));
    expect(incident?.title).toBe("Leaked payroll sheet");
    expect(await relay()).toBeGreaterThanOrEqual(1);
    await waitFor(async () => of("incident.created").length === 1, 20_000);
    expect(of("incident.created")[0]?.data).toMatchObject({ incidentId: incident?.id, status: "OPEN" });

    const dying2 = killedAfterCommit(h.gw.db.db);
    await killed(
      () =>
        callRoute(a, dying2.db, deadQueue(h.jobs), "PATCH", "/incidents/{id}", {
          id: incident?.id,
          status: "INVESTIGATING",
        }),
      dying2.isDead,
    );
    expect(await relay()).toBeGreaterThanOrEqual(1);
    await waitFor(async () => of("incident.updated").length === 1, 20_000);
    expect(of("incident.updated")[0]?.data).toMatchObject({
      incidentId: incident?.id,
      status: "INVESTIGATING",
      previousStatus: "OPEN",
      changes: ["status"],
    });
  });

  it("anomaly.detected", async () => {
    const a = await h.gw.createActor({ plan: "business" });
    const { of } = await subscribed(a, ["anomaly.detected"]);
    const db = h.gw.db.db;
    const c = await demoConnector(db, a.orgId);
    const now = new Date();
    await insertEvents(
      db,
      steadyPopulation({ orgId: a.orgId, connectorId: c.id, principals: 40, days: 98, now, seed: 5 }),
    );
    await insertEvents(
      db,
      burst({
        orgId: a.orgId,
        connectorId: c.id,
        principal: "person5@steady.test",
        kind: "share_external",
        n: 40,
        at: new Date(now.getTime() - 6 * 3_600_000),
        tag: "spike",
      }),
    );

    // Killed right after the refresh committed its anomalies.
    const stored = async () =>
      (await db.select().from(anomalies).where(eq(anomalies.orgId, a.orgId))).length > 0;
    const dying = killedAfterCommit(db, stored);
    const { runtime, log } = h.gw.gateway.deps;
    await killed(
      () => runBehaviourRefresh({ db: dying.db, jobs: deadQueue(h.jobs), runtime, log }, a.orgId),
      dying.isDead,
    );
    const found = await db.select().from(anomalies).where(eq(anomalies.orgId, a.orgId));
    expect(found.map((x) => x.type)).toContain("sharing_spike");

    // The restarted process recomputes: the anomalies are no longer new to it.
    await runBehaviourRefresh({ db, jobs: h.jobs, runtime, log }, a.orgId);
    expect(await relay()).toBeGreaterThanOrEqual(1);
    await waitFor(async () => of("anomaly.detected").length === found.length, 20_000);
    expect(
      of("anomaly.detected")
        .map((d) => d.data.anomalyId)
        .sort(),
    ).toEqual(found.map((x) => x.id).sort());
  });

  it("partner.report.ready", async () => {
    const p = await h.gw.createActor({ plan: "enterprise", isPartner: true });
    const { of } = await subscribed(p, ["partner.report.ready"]);
    const db = h.gw.db.db;
    const client = await h.gw.createOrg({ plan: "business", name: "Crash Client", managedByOrgId: p.orgId });
    await seedWorkspace(db, { orgId: client.id, scores: [60, 72] });

    const stored = async () =>
      (await db.select().from(partnerReports).where(eq(partnerReports.partnerOrgId, p.orgId))).length > 0;
    const dying = killedAfterCommit(db, stored);
    const { runtime, log } = h.gw.gateway.deps;
    const now = new Date();
    const build = (d: Db, jobs: TJobQueue) =>
      buildScheduledReport({ db: d, jobs, runtime, log }, { partnerOrgId: p.orgId, schedule: "WEEKLY", now });
    await killed(() => build(dying.db, deadQueue(h.jobs)), dying.isDead);
    const [report] = await db.select().from(partnerReports).where(eq(partnerReports.partnerOrgId, p.orgId));
    expect(report).toBeDefined();

    // The restarted sweep finds the report built and builds nothing.
    expect(await build(db, h.jobs)).toBeNull();
    expect(await relay()).toBeGreaterThanOrEqual(1);
    await waitFor(async () => of("partner.report.ready").length === 1, 20_000);
    expect(of("partner.report.ready")[0]?.data).toMatchObject({ reportId: report?.id, clients: 1 });
  });

  it("client.unhealthy, announced once", async () => {
    const p = await h.gw.createActor({ plan: "enterprise", isPartner: true });
    const { of } = await subscribed(p, ["client.unhealthy"]);
    const settings = await h.gw.request("PATCH", "/api/partner/settings", {
      cookie: p.cookie,
      body: { notifyUnhealthy: true },
    });
    expect(settings.status).toBe(200);
    const db = h.gw.db.db;
    const client = await h.gw.createOrg({ plan: "business", name: "Flaky Client", managedByOrgId: p.orgId });
    const { connectorId } = await seedWorkspace(db, { orgId: client.id, scores: [80] });
    const { runtime, log } = h.gw.gateway.deps;
    await sweepClientHealth({ db, jobs: h.jobs, runtime, log }); // first look: records the state

    await db.update(connectors).set({ healthStatus: "auth_failed" }).where(eq(connectors.id, connectorId));
    const dying = killedAfterCommit(db);
    await killed(
      () => sweepClientHealth({ db: dying.db, jobs: deadQueue(h.jobs), runtime, log }),
      dying.isDead,
    );
    // The restarted sweep sees the state the announcement was judged against: nothing new.
    await sweepClientHealth({ db, jobs: h.jobs, runtime, log });

    const recorded = await db
      .select()
      .from(events)
      .where(and(eq(events.orgId, p.orgId), eq(events.type, "client.unhealthy")));
    expect(recorded).toHaveLength(1);
    expect(await relay()).toBeGreaterThanOrEqual(1);
    await waitFor(async () => of("client.unhealthy").length === 1, 20_000);
    expect(of("client.unhealthy")[0]?.data).toMatchObject({ orgId: client.id, reason: "source_unhealthy" });
  });
});
