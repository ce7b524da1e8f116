import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace } from "@posture/compliance/testing";
import { connectors, events, incidents, oauthGrants } from "@posture/db";
import { announceApproachingDeadlines } from "@posture/incidents";
import { buildScheduledReport, PARTNER_RADAR_JOB, sweepClientHealth } from "@posture/partner";
import { runBehaviourRefresh } from "@posture/ueba";
import { EVENT_DATA_SCHEMAS, EVENT_TYPES } from "@posture/webhooks";
import { insertPlan } from "@posture/remediation";
import { startReceiver, waitFor, type TReceiver } from "@posture/webhooks/testing";
import { startTestGateway, type TTestGateway } from "../../testing";
import { burst, demoConnector, insertEvents, steadyPopulation } from "../detection/seed";
import { errorCode, freshIp } from "../helpers";

// Every event that carries a `link`: the link, fetched with the organization's own API key,
// answers 200 with the very thing the event names.

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TData = Record<string, unknown>;
type TFinding = { id: string; title: string; status: string; category: string };

let gw: TTestGateway;
let rx: TReceiver;
beforeAll(async () => {
  rx = await startReceiver();
  gw = await startTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
});
afterAll(async () => {
  await gw.close();
  await rx.close();
});

async function recorded(orgId: string, type: string): Promise<TData[]> {
  const rows = await gw.db.db
    .select()
    .from(events)
    .where(and(eq(events.orgId, orgId), eq(events.type, type)));
  return rows.map((r) => JSON.parse(r.data) as TData);
}

/** GETs an event's link as the organization's integrator would: its path and query, with the key. */
async function follow(a: TActor, data: TData) {
  const link = new URL(String(data.link));
  expect(link.pathname.startsWith("/api/")).toBe(true);
  return gw.request("GET", `${link.pathname}${link.search}`, { key: a.key, ip: freshIp() });
}

const linked = new Set<string>();
const covered = (type: string) => linked.add(type);

describe("event links resolve to what they name", { timeout: 180_000 }, () => {
  it("scan.completed, finding.new, finding.resolved, alert.grouped", async () => {
    const a = await gw.createActor({ plan: "business" });
    const all = ["scan.completed", "finding.new", "finding.resolved", "alert.grouped"];
    expect(
      (await gw.request("POST", "/api/webhooks", { cookie: a.cookie, body: { url: rx.url, events: all } }))
        .status,
    ).toBe(201);
    const created = await gw.request("POST", "/api/connectors", {
      cookie: a.cookie,
      body: { type: "google_workspace", displayName: "Links", mode: "demo", config: { fileCount: 300 } },
    });
    const connectorId = (created.body as { id: string }).id;
    const scan = await gw.request("POST", `/api/connectors/${connectorId}/sync`, { cookie: a.cookie });
    expect(scan.status).toBe(200);

    const [completed] = await recorded(a.orgId, "scan.completed");
    const res = await follow(a, completed ?? {});
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(scan.body);
    covered("scan.completed");

    const news = await recorded(a.orgId, "finding.new");
    expect(news.length).toBeGreaterThan(0);
    for (const n of news.slice(0, 5)) {
      const r = await follow(a, n);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ id: n.findingId, title: n.title, status: "OPEN" });
    }
    covered("finding.new");

    const grouped = await recorded(a.orgId, "alert.grouped");
    expect(grouped.length).toBeGreaterThan(1);
    for (const g of grouped) {
      const r = await follow(a, g);
      expect(r.status, r.text).toBe(200);
      const page = r.body as { findings: TFinding[]; total: number };
      // The first scan's findings are all new: the category's open findings are exactly the alert's.
      expect(page.total).toBe(g.count);
      expect(page.findings.length).toBeGreaterThan(0);
      expect(page.findings.every((f) => f.category === g.category)).toBe(true);
    }
    covered("alert.grouped");

    await gw.db.db
      .update(connectors)
      .set({ config: { fileCount: 300, revision: 1 } })
      .where(eq(connectors.id, connectorId));
    expect(
      (await gw.request("POST", `/api/connectors/${connectorId}/sync`, { cookie: a.cookie })).status,
    ).toBe(200);
    const resolved = await recorded(a.orgId, "finding.resolved");
    expect(resolved.length).toBeGreaterThan(0);
    for (const f of resolved.slice(0, 5)) {
      const r = await follow(a, f);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ id: f.findingId, title: f.title, status: "RESOLVED" });
    }
    covered("finding.resolved");

    // Another organization's key cannot read them: 404, as for an unknown id.
    const other = await gw.createActor({ plan: "business" });
    const foreign = await follow(other, news[0] ?? {});
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe("not_found");
    expect((await follow(other, completed ?? {})).status).toBe(404);
    const bad = await gw.request("GET", "/api/findings?category=nonsense", { key: a.key, ip: freshIp() });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("invalid_input");
  });

  it("incident.created, incident.updated", async () => {
    const a = await gw.createActor({ plan: "business" });
    expect(
      (
        await gw.request("POST", "/api/webhooks", {
          cookie: a.cookie,
          body: { url: rx.url, events: ["incident.created", "incident.updated"] },
        })
      ).status,
    ).toBe(201);
    const inc = await gw.request("POST", "/api/incidents", {
      key: a.key,
      body: { title: "Linked", priority: "P3", findingIds: [] },
    });
    expect(inc.status, inc.text).toBe(201);
    const id = (inc.body as { id: string }).id;
    const upd = await gw.request("PATCH", `/api/incidents/${id}`, {
      key: a.key,
      body: { status: "INVESTIGATING" },
    });
    expect(upd.status).toBe(200);
    for (const type of ["incident.created", "incident.updated"]) {
      const [e] = await recorded(a.orgId, type);
      const r = await follow(a, e ?? {});
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ id, title: "Linked" });
      covered(type);
    }
  });

  it("incident.deadline.approaching", async () => {
    const a = await gw.createActor({ plan: "business" });
    const inc = await gw.request("POST", "/api/incidents", {
      key: a.key,
      body: { title: "Clock running", priority: "P1", findingIds: [] },
    });
    expect(inc.status, inc.text).toBe(201);
    const id = (inc.body as { id: string }).id;
    // Opened 50 hours ago: GDPR's 72 hours are due within the day's notice window.
    await gw.db.db
      .update(incidents)
      .set({ openedAt: new Date(Date.now() - 50 * 3_600_000) })
      .where(eq(incidents.id, id));
    await announceApproachingDeadlines(gw.db.db, {
      jobs: gw.gateway.deps.jobs,
      publicUrl: gw.gateway.deps.runtime.publicUrl,
    });
    const [e] = await recorded(a.orgId, "incident.deadline.approaching");
    const r = await follow(a, e ?? {});
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id, title: "Clock running" });
    covered("incident.deadline.approaching");
  });

  it("anomaly.detected", async () => {
    const a = await gw.createActor({ plan: "business" });
    expect(
      (
        await gw.request("POST", "/api/webhooks", {
          cookie: a.cookie,
          body: { url: rx.url, events: ["anomaly.detected"] },
        })
      ).status,
    ).toBe(201);
    const c = await demoConnector(gw.db.db, a.orgId);
    const now = new Date();
    await insertEvents(
      gw.db.db,
      steadyPopulation({ orgId: a.orgId, connectorId: c.id, principals: 40, days: 98, now, seed: 3 }),
    );
    await insertEvents(
      gw.db.db,
      burst({
        orgId: a.orgId,
        connectorId: c.id,
        principal: "person7@steady.test",
        kind: "share_external",
        n: 40,
        at: new Date(now.getTime() - 6 * 3_600_000),
        tag: "spike",
      }),
    );
    const { jobs, runtime, log } = gw.gateway.deps;
    await runBehaviourRefresh({ db: gw.db.db, jobs, runtime, log }, a.orgId);
    const announced = await recorded(a.orgId, "anomaly.detected");
    expect(announced.length).toBeGreaterThan(0);
    for (const e of announced) {
      const r = await follow(a, e);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ id: e.anomalyId, principal: e.principal, type: e.type });
    }
    covered("anomaly.detected");
  });

  it("partner.report.ready, client.unhealthy", async () => {
    const p = await gw.createActor({ plan: "enterprise", isPartner: true });
    expect(
      (
        await gw.request("POST", "/api/webhooks", {
          cookie: p.cookie,
          body: { url: rx.url, events: ["partner.report.ready", "client.unhealthy"] },
        })
      ).status,
    ).toBe(201);
    const client = await gw.createOrg({ plan: "business", name: "Linked Client", managedByOrgId: p.orgId });
    const { connectorId } = await seedWorkspace(gw.db.db, { orgId: client.id, scores: [70, 75] });
    const { jobs, runtime, log } = gw.gateway.deps;
    const deps = { db: gw.db.db, jobs, runtime, log };
    const reportId = await buildScheduledReport(deps, {
      partnerOrgId: p.orgId,
      schedule: "WEEKLY",
      now: new Date(),
    });
    const [ready] = await recorded(p.orgId, "partner.report.ready");
    expect(ready?.reportId).toBe(reportId);
    const pdf = await follow(p, ready ?? {});
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(pdf.headers.get("content-disposition")).toContain("portfolio-weekly");
    covered("partner.report.ready");

    expect(
      (
        await gw.request("PATCH", "/api/partner/settings", {
          cookie: p.cookie,
          body: { notifyUnhealthy: true },
        })
      ).status,
    ).toBe(200);
    await sweepClientHealth(deps);
    await gw.db.db
      .update(connectors)
      .set({ healthStatus: "auth_failed" })
      .where(eq(connectors.id, connectorId));
    await sweepClientHealth(deps);
    const [unhealthy] = await recorded(p.orgId, "client.unhealthy");
    const r = await follow(p, unhealthy ?? {});
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ orgId: client.id, name: "Linked Client" });
    covered("client.unhealthy");
  });

  it("partner.drift.detected", async () => {
    const p = await gw.createActor({ plan: "enterprise", isPartner: true });
    const client = await gw.createOrg({ plan: "business", name: "Drifting Client", managedByOrgId: p.orgId });
    await seedWorkspace(gw.db.db, { orgId: client.id, scores: [40] });
    const created = await gw.request("POST", "/api/partner/standards", {
      key: p.key,
      ip: freshIp(),
      body: { name: "Floor", policies: [], preventionRules: [], trustedDomains: [], minScore: 90 },
    });
    expect(created.status, created.text).toBe(201);
    const standardId = (created.body as { id: string }).id;
    const assigned = await gw.request("PUT", `/api/partner/standards/${standardId}/assignments`, {
      key: p.key,
      ip: freshIp(),
      body: { clientOrgIds: [client.id], groupIds: [] },
    });
    expect(assigned.status, assigned.text).toBe(200);
    // The assignment queues the partner's drift refresh: the event follows it.
    await waitFor(async () => (await recorded(p.orgId, "partner.drift.detected")).length > 0, 15_000);
    const [drift] = await recorded(p.orgId, "partner.drift.detected");
    expect(drift).toMatchObject({ standardId, clientOrgId: client.id, rule: "min_score" });
    const r = await follow(p, drift ?? {});
    expect(r.status, r.text).toBe(200);
    const listed = (r.body as { drift: Array<{ id: string }> }).drift.map((d) => d.id);
    expect(listed).toContain(drift?.driftId);
    covered("partner.drift.detected");
  });

  it("portfolio.campaign.detected, portfolio.campaign.updated", async () => {
    const p = await gw.createActor({ plan: "enterprise", isPartner: true });
    const app = `${randomBytes(4).toString("hex")}-links.apps.googleusercontent.com`;
    const grantIn = async (name: string) => {
      const org = await gw.createOrg({ plan: "business", name, managedByOrgId: p.orgId });
      const [con] = await gw.db.db
        .insert(connectors)
        .values({ orgId: org.id, type: "google_workspace", displayName: "Drive", mode: "demo" })
        .returning({ id: connectors.id });
      await gw.db.db.insert(oauthGrants).values({
        orgId: org.id,
        connectorId: con?.id ?? "",
        externalId: `g-${randomBytes(4).toString("hex")}`,
        clientId: app,
        label: "Shady Sync",
        kind: "oauth_app",
        publisher: "shadysync.example",
        isKnownPublisher: false,
        scopes: ["https://www.googleapis.com/auth/drive"],
        userEmail: "someone@client.example",
        grantedAt: new Date(),
      });
    };
    const radar = () =>
      gw.gateway.deps.jobs.runAndWait(
        PARTNER_RADAR_JOB,
        { partnerOrgId: p.orgId },
        { jobId: `links-radar-${randomBytes(4).toString("hex")}`, timeoutMs: 30_000 },
      );
    await grantIn("Links One");
    await grantIn("Links Two");
    await radar();
    const [detected] = await recorded(p.orgId, "portfolio.campaign.detected");
    expect(detected).toMatchObject({ kind: "oauth_app", subject: app, clientCount: 2 });
    const d = await follow(p, detected ?? {});
    expect(d.status, d.text).toBe(200);
    expect(d.body).toMatchObject({ id: detected?.campaignId, subject: app });
    covered("portfolio.campaign.detected");

    await grantIn("Links Three");
    await radar();
    const [updated] = await recorded(p.orgId, "portfolio.campaign.updated");
    expect(updated).toMatchObject({ campaignId: detected?.campaignId, clientCount: 3 });
    const u = await follow(p, updated ?? {});
    expect(u.status, u.text).toBe(200);
    expect(u.body).toMatchObject({ id: updated?.campaignId, clientCount: 3 });
    covered("portfolio.campaign.updated");
  });

  it("remediation.planned, .applied, .reverted, .failed, .reverting, .settings.changed, .undo.requested", async () => {
    const a = await gw.createActor({ plan: "business" });
    const sync = async (id: string) =>
      expect((await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie })).status).toBe(200);
    const connect = async (type: string) => {
      const res = await gw.request("POST", "/api/connectors", {
        cookie: a.cookie,
        body: { type, displayName: type, mode: "demo", demo: { files: 300 } },
      });
      expect(res.status, res.text).toBe(201);
      return (res.body as { id: string }).id;
    };
    const post = async (path: string, body?: unknown) => {
      const res = await gw.request("POST", path, { key: a.key, ...(body === undefined ? {} : { body }) });
      expect(res.status, res.text).toBeLessThan(300);
      return res.body as { id: string; status: string };
    };
    const settle = (id: string, status: string) =>
      waitFor(async () => {
        const r = await gw.request("GET", `/api/remediations/${id}`, { key: a.key });
        return (r.body as { status: string }).status === status;
      }, 20_000);
    const followAll = async (type: string, status: string) => {
      const all = await recorded(a.orgId, type);
      expect(all.length, type).toBeGreaterThan(0);
      for (const e of all) {
        const r = await follow(a, e);
        expect(r.status, r.text).toBe(200);
        expect(r.body).toMatchObject({ id: e.remediationId, status });
      }
      covered(type);
    };

    // A public link removed and put back on Google's sandbox.
    const google = await connect("google_workspace");
    await sync(google);
    const links = await gw.request("GET", "/api/findings?category=public_exposure&limit=1", { key: a.key });
    const finding = (links.body as { findings: TFinding[] }).findings[0];
    expect(finding).toBeDefined();
    const plan = await post("/api/remediations", { findingIds: [finding?.id] });
    await post(`/api/remediations/${plan.id}/approve`);
    await post(`/api/remediations/${plan.id}/apply`);
    await settle(plan.id, "APPLIED");
    await post(`/api/remediations/${plan.id}/undo`);
    await settle(plan.id, "REVERTED");

    // An ownership transfer Microsoft 365 has no API for: the only step fails, and so does the apply.
    const microsoft = await connect("microsoft_365");
    const failing = await insertPlan(gw.db.db, {
      orgId: a.orgId,
      origin: "manual",
      request: { playbook: { kind: "offboard_user" } },
      predicted: { score: 50, grade: "F", scoreDelta: 0, before: { score: 50, grade: "F" } },
      plannedBy: { kind: "system", userId: null, email: "system", orgId: a.orgId },
      steps: [
        {
          connectorId: microsoft,
          action: "transfer_ownership",
          resource: {
            kind: "file_owner",
            fileId: "f1",
            driveId: null,
            name: "Plan.docx",
            ownerEmail: "a@x.test",
          },
          before: { ownerEmail: "a@x.test" },
          after: { ownerEmail: "b@x.test" },
          reversible: false,
          irreversibleReason: "Microsoft 365 has no ownership transfer",
          findingIds: [],
          people: [],
        },
      ],
    });
    await post(`/api/remediations/${failing}/approve`);
    await post(`/api/remediations/${failing}/apply`);
    await settle(failing, "FAILED");

    // Each event's link answers with its remediation, in the state the event announced... or later.
    for (const e of await recorded(a.orgId, "remediation.planned")) {
      const r = await follow(a, e);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ id: e.remediationId });
    }
    covered("remediation.planned");
    await followAll("remediation.reverted", "REVERTED");
    await followAll("remediation.failed", "FAILED");
    const applied = await recorded(a.orgId, "remediation.applied");
    expect(applied).toMatchObject([{ remediationId: plan.id, status: "APPLIED" }]);
    expect((await follow(a, applied[0] ?? {})).status).toBe(200);
    covered("remediation.applied");
    // The undo above started at once (four eyes off): who asked, nobody confirmed.
    const [reverting] = await recorded(a.orgId, "remediation.reverting");
    expect(reverting).toMatchObject({ remediationId: plan.id, confirmedBy: null });
    const rv = await follow(a, reverting ?? {});
    expect(rv.status, rv.text).toBe(200);
    expect(rv.body).toMatchObject({ id: plan.id });
    covered("remediation.reverting");

    // Four eyes on (a settings change), then one person's undo waits for a second person's.
    const on = await gw.request("PATCH", "/api/remediation-settings", {
      key: a.key,
      body: { fourEyes: true },
    });
    expect(on.status, on.text).toBe(200);
    const [changed] = await recorded(a.orgId, "remediation.settings.changed");
    expect(changed).toMatchObject({ changed: ["fourEyes"], weakened: false });
    const sc = await follow(a, changed ?? {});
    expect(sc.status, sc.text).toBe(200);
    expect(sc.body).toMatchObject({ fourEyes: true });
    covered("remediation.settings.changed");
    await post("/api/remediations", { findingIds: [finding?.id] }).then(async (again) => {
      // The link the first plan removed is back after its undo: plan, approve (a second admin), apply.
      const second = await gw.createActor({ orgId: a.orgId, role: "ADMIN" });
      const ok = await gw.request("POST", `/api/remediations/${again.id}/approve`, { key: second.key });
      expect(ok.status, ok.text).toBe(200);
      await post(`/api/remediations/${again.id}/apply`);
      await settle(again.id, "APPLIED");
      const asked = await post(`/api/remediations/${again.id}/undo`);
      expect(asked.status).toBe("APPLIED");
      const [requested] = await recorded(a.orgId, "remediation.undo.requested");
      expect(requested).toMatchObject({ remediationId: again.id, status: "APPLIED" });
      const rq = await follow(a, requested ?? {});
      expect(rq.status, rq.text).toBe(200);
      expect(rq.body).toMatchObject({ id: again.id, status: "APPLIED" });
      covered("remediation.undo.requested");
    });
  });

  it("covers every event type whose data has a link", () => {
    // finding.ticket.updated follows a tracker's signed webhook (tests/posture/ticket-webhooks);
    // its link is the finding's, the same as finding.new's followed above.
    const elsewhere = new Set(["finding.ticket.updated"]);
    const withLink = EVENT_TYPES.filter((t) => "link" in EVENT_DATA_SCHEMAS[t].shape && !elsewhere.has(t));
    expect([...linked].sort()).toEqual([...withLink].sort());
  });
});
