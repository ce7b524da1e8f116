import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectors, events, scans, webhookDeliveries } from "@posture/db";
import type { TJobQueue } from "@posture/platform";
import { runScanJob } from "@posture/scans";
import { DELIVER_JOB, requeueOverdueDeliveries } from "@posture/webhooks";
import {
  startReceiver,
  verifyServiceSignature,
  verifyStandardWebhook,
  waitFor,
  type TReceiver,
} from "@posture/webhooks/testing";
import { useTestGateway } from "../../testing";

type TDelivered = { event: string; data: Record<string, unknown>; id: string; createdAt: string };
type TScan = { findingsNew: number; findingsResolved: number; postureScore: number };

const ALL_EVENTS = [
  "scan.completed",
  "finding.new",
  "finding.resolved",
  "policy.violation",
  "prevention.triggered",
  "alert.grouped",
];

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
let receiver: TReceiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe("scan events", () => {
  it("announces a scan's results as the spec's six signed events", async () => {
    const a = await gw.createActor({ plan: "business" });
    const sub = await gw.request("POST", "/api/webhooks", {
      cookie: a.cookie,
      body: { url: receiver.url, events: ALL_EVENTS },
    });
    expect(sub.status).toBe(201);
    const secret = (sub.body as { secret: string }).secret;

    const created = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: {
        type: "google_workspace",
        displayName: "Events Drive",
        mode: "demo",
        config: { fileCount: 300 },
      },
    });
    const connectorId = (created.body as { id: string }).id;
    const scan = (await gw.request("POST", `/api/connectors/${connectorId}/sync`, { cookie: a.cookie }))
      .body as TScan;
    expect(scan.findingsNew).toBeGreaterThan(0);

    const delivered = () => receiver.received.map((r) => JSON.parse(r.body) as TDelivered);
    const of = (type: string) => delivered().filter((d) => d.event === type);
    const groupedCount = () => of("alert.grouped").reduce((n, g) => n + Number(g.data.count), 0);
    await waitFor(
      async () =>
        of("finding.new").length === scan.findingsNew &&
        of("scan.completed").length === 1 &&
        groupedCount() === scan.findingsNew,
      20_000,
    );

    for (const r of receiver.received) {
      expect(await verifyServiceSignature(secret, r)).toBe(true);
      expect(verifyStandardWebhook(secret, r)).toBeTruthy();
    }
    const [completed] = of("scan.completed");
    expect(completed?.data).toMatchObject({
      connectorId,
      connectorName: "Events Drive",
      score: scan.postureScore,
      findingsNew: scan.findingsNew,
    });
    expect(typeof completed?.data.findingsTotal).toBe("number");
    expect(String(completed?.data.link)).toMatch(/^http/);
    expect(Object.keys(of("finding.new")[0]?.data ?? {}).sort()).toEqual([
      "findingId",
      "link",
      "resource",
      "severity",
      "title",
    ]);

    // One grouped alert per category with new findings.
    const grouped = of("alert.grouped");
    const categories = grouped.map((g) => g.data.category);
    expect(new Set(categories).size).toBe(categories.length);
    expect(groupedCount()).toBe(scan.findingsNew);
    // The default policy set matches a demo workspace's critical exposures; the default prevention rule alerts.
    await waitFor(
      async () => of("policy.violation").length > 0 && of("prevention.triggered").length > 0,
      20_000,
    );
    expect(of("prevention.triggered")[0]?.data).toMatchObject({ action: "ALERT_ONLY" });
    expect(Object.keys(of("policy.violation")[0]?.data ?? {}).sort()).toEqual([
      "count",
      "ruleId",
      "severity",
    ]);

    // The source drifts; the rescan resolves findings and says so.
    await gw.db.db
      .update(connectors)
      .set({ config: { fileCount: 300, revision: 1 } })
      .where(eq(connectors.id, connectorId));
    const rescan = (await gw.request("POST", `/api/connectors/${connectorId}/sync`, { cookie: a.cookie }))
      .body as TScan;
    expect(rescan.findingsResolved).toBeGreaterThan(0);
    await waitFor(async () => of("finding.resolved").length === rescan.findingsResolved, 20_000);
    expect(Object.keys(of("finding.resolved")[0]?.data ?? {}).sort()).toEqual([
      "action",
      "findingId",
      "link",
      "remediationId",
      "title",
    ]);
    // A scan resolved it, not a remediation.
    expect(of("finding.resolved")[0]?.data).toMatchObject({ action: null, remediationId: null });
    expect(new Set(delivered().map((d) => d.id)).size).toBe(delivered().length);
  });

  it("survives a crash between the scan's commit and dispatch: the sweep delivers its events", async () => {
    const a = await gw.createActor({ plan: "business" });
    const rx = await startReceiver();
    try {
      const sub = await gw.request("POST", "/api/webhooks", {
        cookie: a.cookie,
        body: { url: rx.url, events: ["scan.completed", "finding.new"] },
      });
      expect(sub.status).toBe(201);
      const created = await gw.request("POST", "/api/connectors", {
        cookie: a.cookie,
        body: {
          type: "google_workspace",
          displayName: "Crash Drive",
          mode: "demo",
          config: { fileCount: 40 },
        },
      });
      const connectorId = (created.body as { id: string }).id;
      const [scan] = await gw.db.db
        .insert(scans)
        .values({ orgId: a.orgId, connectorId, connectorName: "Crash Drive", trigger: "manual" })
        .returning();
      if (!scan) throw new Error("scan insert failed");

      // The process "dies" right after the scan commits: no delivery job is ever queued.
      const real = gw.gateway.deps.jobs;
      const dying: TJobQueue = {
        ...real,
        enqueue: async (name, data, opts) => {
          if (name === DELIVER_JOB) throw new Error("process killed before dispatch");
          return real.enqueue(name, data, opts);
        },
      };
      const { runtime, log } = gw.gateway.deps;
      const result = await runScanJob({ db: gw.db.db, jobs: dying, runtime, log }, scan.id, 1);
      expect(result.status).toBe("COMPLETE");
      expect(result.findingsNew).toBeGreaterThan(0);

      // The events committed with the scan, as undispatched (pending) deliveries…
      const outbox = await gw.db.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.orgId, a.orgId));
      expect(outbox).toHaveLength(result.findingsNew + 1);
      expect(outbox.every((d) => d.status === "pending" && d.attempts === 0)).toBe(true);
      expect((await gw.db.db.select().from(events).where(eq(events.orgId, a.orgId))).length).toBe(
        result.findingsNew + 1,
      );
      await new Promise((r) => setTimeout(r, 200));
      expect(rx.received).toHaveLength(0);

      // …which the periodic sweep picks up once overdue (a minute later; here, the clock is moved).
      await gw.db.db.execute(
        sql`update webhook_deliveries set next_attempt_at = now() - interval '2 minutes' where org_id = ${a.orgId}`,
      );
      expect(await requeueOverdueDeliveries(gw.db.db, real)).toBeGreaterThanOrEqual(result.findingsNew + 1);
      await waitFor(async () => rx.received.length === result.findingsNew + 1, 20_000);
      const delivered = rx.received.map((r) => (JSON.parse(r.body) as TDelivered).event);
      expect(delivered.filter((e) => e === "scan.completed")).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });
});
