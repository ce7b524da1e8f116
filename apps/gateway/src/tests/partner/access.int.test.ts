import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, events, partnerReports } from "@posture/db";
import { buildScheduledReport } from "@posture/partner";
import { startReceiver, waitFor, type TReceiver } from "@posture/webhooks/testing";
import { startTestGateway, type TTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// A managed client's consent to its partner's reads (issue 17, item 1): GET / DELETE / PUT
// /api/partner-access, audited on both sides, announced to the partner, effective at once.

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
let gw: TTestGateway;
let rx: TReceiver;
let msp: TActor;
let acme: TActor; // OWNER of msp's client
let acmeAdmin: TActor;
let acmeMember: TActor;
let other: TActor; // OWNER of msp's other client

beforeAll(async () => {
  rx = await startReceiver();
  gw = await startTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  const subscribed = await gw.request("POST", "/api/webhooks", {
    cookie: msp.cookie,
    ip: freshIp(),
    body: { url: rx.url, events: ["partner.access.changed"] },
  });
  expect(subscribed.status).toBe(201);
  const acmeOrg = await gw.createOrg({ plan: "business", name: "Acme Ltd", managedByOrgId: msp.orgId });
  acme = await gw.createActor({ orgId: acmeOrg.id });
  acmeAdmin = await gw.createActor({ orgId: acmeOrg.id, role: "ADMIN" });
  acmeMember = await gw.createActor({ orgId: acmeOrg.id, role: "member" });
  const otherOrg = await gw.createOrg({ plan: "business", name: "Other GmbH", managedByOrgId: msp.orgId });
  other = await gw.createActor({ orgId: otherOrg.id });
});
afterAll(async () => {
  await gw.close();
  await rx.close();
});

const call = (method: string, path: string, who: { key?: string; cookie?: string }) =>
  gw.request(method, path, { ...who, ip: freshIp() });
const access = (method: "GET" | "DELETE" | "PUT", a: TActor, how: "key" | "cookie" = "key") =>
  call(method, "/api/partner-access", how === "key" ? { key: a.key } : { cookie: a.cookie });

type TAccess = {
  partner: { orgId: string; name: string } | null;
  access: string | null;
  grantedAt: string | null;
  withdrawnAt: string | null;
};

/** What the partner can read of `clientId` now: one of each kind of partner read. */
async function partnerSees(clientId: string) {
  const findings = await call("GET", `/api/partner/clients/${clientId}/findings`, { key: msp.key });
  const report = await call("GET", `/api/partner/reports/client/${clientId}`, { key: msp.key });
  const portfolio = await call("GET", "/api/partner/reports/portfolio", { key: msp.key });
  const listed = (portfolio.body as { clients: Array<{ orgId: string }> }).clients.map((c) => c.orgId);
  return { findings: findings.status, report: report.status, listed: listed.includes(clientId) };
}

const auditRows = (orgId: string, action: string) =>
  gw.db.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, action)));

describe("GET /api/partner-access", () => {
  it("shows the managing partner and granted access, to any member, by key or session", async () => {
    for (const [a, how] of [
      [acmeMember, "key"],
      [acme, "cookie"],
    ] as const) {
      const res = await access("GET", a, how);
      expect(res.status).toBe(200);
      const body = res.body as TAccess;
      expect(body).toMatchObject({
        partner: { orgId: msp.orgId, name: expect.any(String) as string },
        access: "granted",
        withdrawnAt: null,
      });
      expect(Date.parse(body.grantedAt ?? "")).not.toBeNaN();
    }
  });

  it("says partner: null for an organization no partner manages", async () => {
    const loner = await gw.createActor({ plan: "business" });
    const res = await access("GET", loner);
    expect(res.body).toEqual({ partner: null, access: null, grantedAt: null, withdrawnAt: null });
    // Nothing to withdraw or grant there.
    for (const m of ["DELETE", "PUT"] as const) {
      const changed = await access(m, loner);
      expect(changed.status).toBe(404);
      expect(errorCode(changed)).toBe("not_found");
    }
  });

  it("never shows a client the partner's other clients", async () => {
    const mine = (await access("GET", acme)).body as TAccess;
    const theirs = (await access("GET", other)).body as TAccess;
    expect(mine.partner).toEqual(theirs.partner);
    expect(JSON.stringify(mine)).not.toContain(other.orgId);
    // Partner endpoints are not the client's: 403, not a list of its partner's clients.
    for (const path of ["/api/partner/reports/portfolio", `/api/partner/clients/${other.orgId}/findings`]) {
      const res = await call("GET", path, { key: acme.key });
      expect(res.status).toBe(403);
      expect(errorCode(res)).toBe("partner_required");
    }
  });
});

describe("DELETE and PUT /api/partner-access", () => {
  it("403 for ADMIN and member: the OWNER decides", async () => {
    for (const a of [acmeAdmin, acmeMember]) {
      for (const m of ["DELETE", "PUT"] as const) {
        const res = await access(m, a);
        expect(res.status).toBe(403);
        expect(errorCode(res)).toBe("forbidden");
      }
    }
    expect(((await access("GET", acme)).body as TAccess).access).toBe("granted");
  });

  it("withdrawal hides the client from the partner's very next request; PUT brings it back", async () => {
    // The partner's credential is cached by now: consent is still read on every request.
    expect(await partnerSees(acme.orgId)).toEqual({ findings: 200, report: 200, listed: true });

    const withdrawn = await access("DELETE", acme);
    expect(withdrawn.status).toBe(200);
    const w = withdrawn.body as TAccess;
    expect(w).toMatchObject({ partner: { orgId: msp.orgId }, access: "withdrawn" });
    expect(Date.parse(w.withdrawnAt ?? "")).not.toBeNaN();
    expect(await partnerSees(acme.orgId)).toEqual({ findings: 404, report: 404, listed: false });
    // The same 404 as for an organization the partner never managed.
    const res = await call("GET", `/api/partner/clients/${acme.orgId}/timeline`, { key: msp.key });
    expect(res.body).toEqual(
      (await call("GET", "/api/partner/clients/org_nope/timeline", { key: msp.key })).body,
    );
    // The other client is untouched.
    expect(await partnerSees(other.orgId)).toEqual({ findings: 200, report: 200, listed: true });
    expect(((await access("GET", acmeMember)).body as TAccess).access).toBe("withdrawn");
    // A scheduled portfolio report built meanwhile leaves the client out.
    const { jobs, runtime, log } = gw.gateway.deps;
    const reportId = await buildScheduledReport(
      { db: gw.db.db, jobs, runtime, log },
      {
        partnerOrgId: msp.orgId,
        schedule: "WEEKLY",
        now: new Date(),
      },
    );
    const [report] = await gw.db.db
      .select({ clients: partnerReports.clientCount })
      .from(partnerReports)
      .where(eq(partnerReports.id, reportId ?? ""));
    expect(report?.clients).toBe(1);

    // Withdrawing again changes nothing and records nothing.
    expect((await access("DELETE", acme, "cookie")).status).toBe(200);
    expect(await auditRows(acme.orgId, "PARTNER_ACCESS_WITHDRAWN")).toHaveLength(1);

    const granted = await access("PUT", acme, "cookie");
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ access: "granted", withdrawnAt: null });
    expect(Date.parse((granted.body as TAccess).grantedAt ?? "")).toBeGreaterThanOrEqual(
      Date.parse(w.grantedAt ?? ""),
    );
    expect(await partnerSees(acme.orgId)).toEqual({ findings: 200, report: 200, listed: true });
    expect((await access("PUT", acme)).status).toBe(200);
    expect(await auditRows(acme.orgId, "PARTNER_ACCESS_GRANTED")).toHaveLength(1);
  });

  it("is audited in both organizations, by the client's OWNER", async () => {
    for (const action of ["PARTNER_ACCESS_WITHDRAWN", "PARTNER_ACCESS_GRANTED"]) {
      const [client] = await auditRows(acme.orgId, action);
      expect(client).toMatchObject({ target: msp.orgId, userId: acme.user.id, userEmail: acme.user.email });
      expect(client?.metadata).toMatchObject({ partnerOrgId: msp.orgId });
      const [partner] = await auditRows(msp.orgId, action);
      expect(partner).toMatchObject({ target: acme.orgId, userId: acme.user.id, userEmail: acme.user.email });
      expect(partner?.metadata).toEqual({ clientOrgId: acme.orgId, clientName: "Acme Ltd" });
    }
    // The partner's own audit log (ADMIN+) shows its client's decision.
    const log = await call("GET", "/api/audit?action=PARTNER_ACCESS_WITHDRAWN", { key: msp.key });
    expect(log.status).toBe(200);
    expect((log.body as { entries: Array<{ target: string }> }).entries.map((e) => e.target)).toEqual([
      acme.orgId,
    ]);
  });

  it("announces partner.access.changed to the partner's subscription, never to the client", async () => {
    const data = { clientOrgId: acme.orgId, clientName: "Acme Ltd", changedBy: acme.user.email };
    const received = await waitFor(() => Promise.resolve(rx.received.length >= 2 ? rx.received : null));
    const bodies = received
      .map((r) => JSON.parse(r.body) as { event: string; data: { access: string } })
      .sort((a, b) => b.data.access.localeCompare(a.data.access));
    expect(bodies).toEqual([
      expect.objectContaining({ event: "partner.access.changed", data: { ...data, access: "withdrawn" } }),
      expect.objectContaining({ event: "partner.access.changed", data: { ...data, access: "granted" } }),
    ]);
    const recorded = await gw.db.db.select().from(events).where(eq(events.type, "partner.access.changed"));
    expect(recorded.map((e) => e.orgId)).toEqual([msp.orgId, msp.orgId]);
  });
});
