import { beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import {
  auditLog,
  partnerAccess,
  partnerCampaigns,
  partnerDrift,
  partnerStandards,
  queryRows,
  remediations,
} from "@posture/db";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Act once, everywhere (issue 17, item 5) over HTTP: a partner plans one remediation per affected
// client from a campaign or a standard's drift, each client's approver approves its own part, the
// partner sees each client's status live; consent, isolation, roles and bad input.

const gw = useTestGateway();
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TClientPart = {
  orgId: string;
  name: string;
  remediationId: string | null;
  status: string;
  error: { code: string; message: string } | null;
  stepCount: number;
};
type TAction = { id: string; source: string; sourceId: string; clients: TClientPart[] };

let msp: TActor;
let rival: TActor;
/** A and B run a demo Google source; C has none. */
const clients: Array<{ id: string; name: string; owner: TActor }> = [];
let appSubject = "";
let sharedDomain = "";

const call = async (a: { cookie: string }, method: string, path: string, body?: unknown) =>
  gw.request(method, path, {
    cookie: a.cookie,
    ip: freshIp(),
    ...(body === undefined ? {} : { body }),
  });

async function campaign(kind: "oauth_app" | "ai_agent" | "outside_domain" | "anomaly", subject: string) {
  const now = new Date();
  const [row] = await gw.db.db
    .insert(partnerCampaigns)
    .values({
      partnerOrgId: msp.orgId,
      kind,
      subject,
      title: `${kind} ${subject}`,
      severity: "HIGH",
      clientOrgIds: clients.map((c) => c.id),
      clientCount: clients.length,
      firstSeenAt: now,
      lastSeenAt: now,
    })
    .returning({ id: partnerCampaigns.id });
  if (!row) throw new Error("no campaign");
  return row.id;
}

beforeAll(async () => {
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  rival = await gw.createActor({ plan: "enterprise", isPartner: true });
  for (const name of ["Alpha Ltd", "Beta GmbH", "Gamma Inc"]) {
    const org = await gw.createOrg({ plan: "business", name, managedByOrgId: msp.orgId });
    const owner = await gw.createActor({ orgId: org.id, role: "OWNER" });
    clients.push({ id: org.id, name, owner });
  }
  for (const c of clients.slice(0, 2)) {
    const conn = await call(c.owner, "POST", "/api/connectors", {
      type: "google_workspace",
      displayName: "Google",
      mode: "demo",
      demo: { files: 300 },
    });
    expect(conn.status, JSON.stringify(conn.body)).toBe(201);
    const scan = await call(c.owner, "POST", `/api/connectors/${(conn.body as { id: string }).id}/sync`);
    expect(scan.status, JSON.stringify(scan.body)).toBe(200);
  }
  const ab = clients.slice(0, 2).map((c) => c.id);
  // The demo workspace is deterministic: the same app is granted in both, the same domain shared to.
  const [app] = await queryRows<{ client_id: string }>(
    gw.db.db,
    sql`SELECT client_id FROM oauth_grants WHERE org_id IN (${ab[0]}, ${ab[1]}) AND client_id <> ''
        GROUP BY client_id HAVING count(DISTINCT org_id) = 2 ORDER BY client_id LIMIT 1`,
  );
  const [domain] = await queryRows<{ domain: string }>(
    gw.db.db,
    sql`SELECT d AS domain FROM workspace_shares, unnest(target_domains) AS d
        WHERE org_id IN (${ab[0]}, ${ab[1]}) AND sharing_type IN ('external_user', 'external_domain')
        GROUP BY d HAVING count(DISTINCT org_id) = 2 ORDER BY count(*), d LIMIT 1`,
  );
  if (!app || !domain) throw new Error("the demo workspaces share no app or no outside domain");
  appSubject = app.client_id;
  sharedDomain = domain.domain;
}, 120_000);

describe("POST /api/partner/actions from a campaign", () => {
  let action: TAction;

  it("plans the app's revocation in each client that has it, and says why not in the other", async () => {
    const campaignId = await campaign("oauth_app", appSubject);
    const res = await call(msp, "POST", "/api/partner/actions", { campaignId });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    action = res.body as TAction;
    expect(action).toMatchObject({ source: "campaign", sourceId: campaignId });
    const [a, b, c] = clients.map((x) => action.clients.find((p) => p.orgId === x.id));
    for (const part of [a, b]) {
      expect(part).toMatchObject({ status: "PLANNED", error: null });
      expect(part?.remediationId).toMatch(/^\w+_/);
      expect(part?.stepCount).toBeGreaterThan(0);
    }
    expect(c).toMatchObject({ name: "Gamma Inc", remediationId: null, status: "SKIPPED" });
    expect(c?.error?.code).toBe("nothing_to_do");

    // Each plan is the client's own, marked with the action, revoking only that app's grants.
    for (const [i, part] of [a, b].entries()) {
      const [row] = await gw.db.db
        .select()
        .from(remediations)
        .where(eq(remediations.id, part?.remediationId ?? ""));
      expect(row).toMatchObject({ orgId: clients[i]?.id, partnerActionId: action.id, status: "PLANNED" });
      expect(row?.plannedBy).toMatchObject({ orgId: msp.orgId });
    }
    const detail = await call(clients[0]?.owner ?? msp, "GET", `/api/remediations/${a?.remediationId}`);
    expect(detail.status).toBe(200);
    const steps = (detail.body as { steps: Array<{ action: string; before: { clientId?: string } }> }).steps;
    expect(steps.every((s) => s.action === "revoke_oauth_grant" && s.before.clientId === appSubject)).toBe(
      true,
    );

    // Audited in the partner organization, and by the planner in each client.
    const [partnerAudit] = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, msp.orgId), eq(auditLog.action, "PARTNER_ACTION_CREATED")));
    expect(partnerAudit).toMatchObject({ target: action.id });
    const clientAudit = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, clients[1]?.id ?? ""), eq(auditLog.action, "REMEDIATION_PLANNED")));
    expect(clientAudit.map((r) => r.target)).toContain(b?.remediationId);
  });

  it("leaves approval to each client: its approver approves its own part, and the partner sees it live", async () => {
    const [a, b] = clients.slice(0, 2).map((x) => action.clients.find((p) => p.orgId === x.id));
    // The clients did not let their partner approve.
    const refused = await call(msp, "POST", `/api/remediations/${b?.remediationId}/approve`);
    expect(refused.status).toBe(403);
    // Another client's owner cannot reach A's plan.
    const across = await call(
      clients[1]?.owner ?? msp,
      "POST",
      `/api/remediations/${a?.remediationId}/approve`,
    );
    expect(across.status).toBe(404);
    const approved = await call(
      clients[0]?.owner ?? msp,
      "POST",
      `/api/remediations/${a?.remediationId}/approve`,
    );
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);

    const res = await call(msp, "GET", `/api/partner/actions/${action.id}`);
    expect(res.status).toBe(200);
    const parts = (res.body as TAction).clients;
    expect(parts.find((p) => p.orgId === clients[0]?.id)?.status).toBe("APPROVED");
    expect(parts.find((p) => p.orgId === clients[1]?.id)?.status).toBe("PLANNED");
    expect(parts.find((p) => p.orgId === clients[2]?.id)?.status).toBe("SKIPPED");
  });

  it("lists the partner's actions, newest first, offset-paged", async () => {
    const res = await call(msp, "GET", "/api/partner/actions?limit=1");
    expect(res.status).toBe(200);
    const body = res.body as { rows: Array<Record<string, unknown>>; total: number; limit: number };
    expect(body.limit).toBe(1);
    expect(body.total).toBeGreaterThanOrEqual(1);
    const all = await call(msp, "GET", "/api/partner/actions?limit=100");
    const row = (all.body as typeof body).rows.find((r) => r.id === action.id);
    expect(row).toMatchObject({ source: "campaign", clientCount: 3, plannedCount: 2 });
    const none = await call(rival, "GET", "/api/partner/actions");
    expect(none.body).toMatchObject({ rows: [], total: 0 });
  });

  it("narrows to clientOrgIds, and answers a client it may not act on with 404", async () => {
    const campaignId = await campaign("outside_domain", sharedDomain);
    const res = await call(msp, "POST", "/api/partner/actions", {
      campaignId,
      clientOrgIds: [clients[1]?.id],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const parts = (res.body as TAction).clients;
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ orgId: clients[1]?.id, status: "PLANNED", error: null });
    const foreign = await gw.createOrg({ plan: "business", managedByOrgId: rival.orgId });
    for (const id of [foreign.id, rival.orgId, "org_nope"]) {
      const r = await call(msp, "POST", "/api/partner/actions", { campaignId, clientOrgIds: [id] });
      expect(r.status).toBe(404);
      expect(errorCode(r)).toBe("not_found");
    }
  });

  it("says an anomaly campaign is not remediable, per client", async () => {
    const campaignId = await campaign("anomaly", "mass_download");
    const res = await call(msp, "POST", "/api/partner/actions", { campaignId });
    expect(res.status).toBe(201);
    const parts = (res.body as TAction).clients;
    expect(parts).toHaveLength(3);
    for (const p of parts) expect(p).toMatchObject({ remediationId: null, status: "SKIPPED" });
    for (const p of parts) expect(p.error?.code).toBe("not_remediable");
  });
});

describe("POST /api/partner/actions from a standard's drift", () => {
  it("removes the shares to a domain the standard does not trust; a policy drift says why not", async () => {
    // The drift below is arranged by hand: a client refresh still queued by the scans above would
    // recompute it from the (unassigned) standard and resolve it mid-test.
    await gw.settleJobs();
    const [std] = await gw.db.db
      .insert(partnerStandards)
      .values({ partnerOrgId: msp.orgId, name: "Baseline", trustedDomains: ["trusted.example"] })
      .returning({ id: partnerStandards.id });
    const standardId = std?.id ?? "";
    await gw.db.db.insert(partnerDrift).values([
      {
        partnerOrgId: msp.orgId,
        standardId,
        clientOrgId: clients[0]?.id ?? "",
        rule: `trusted_domain:${sharedDomain}`,
        severity: "HIGH",
      },
      {
        partnerOrgId: msp.orgId,
        standardId,
        clientOrgId: clients[1]?.id ?? "",
        rule: "policy:no-public-links",
        severity: "MEDIUM",
      },
    ]);
    const res = await call(msp, "POST", "/api/partner/actions", { standardId });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const body = res.body as TAction;
    expect(body).toMatchObject({ source: "standard", sourceId: standardId });
    expect(body.clients).toHaveLength(2);
    const a = body.clients.find((p) => p.orgId === clients[0]?.id);
    const b = body.clients.find((p) => p.orgId === clients[1]?.id);
    expect(a).toMatchObject({ status: "PLANNED", error: null });
    expect(b).toMatchObject({ status: "SKIPPED", remediationId: null });
    expect(b?.error?.code).toBe("not_remediable");
    const plan = await call(clients[0]?.owner ?? msp, "GET", `/api/remediations/${a?.remediationId}`);
    const steps = (plan.body as { steps: Array<{ action: string }> }).steps;
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.every((s) => s.action.startsWith("remove_external"))).toBe(true);

    // One rule only: the policy rule's drift alone plans nothing.
    const one = await call(msp, "POST", "/api/partner/actions", {
      standardId,
      rule: "policy:no-public-links",
    });
    expect(one.status).toBe(201);
    expect((one.body as TAction).clients.map((p) => p.orgId)).toEqual([clients[1]?.id]);
    // A rule no client drifts from: nothing to act on.
    const nothing = await call(msp, "POST", "/api/partner/actions", { standardId, rule: "min_score" });
    expect(nothing.status).toBe(400);
    expect(errorCode(nothing)).toBe("invalid_input");
    // A client of the partner's that does not drift: named, and told so.
    const gamma = await call(msp, "POST", "/api/partner/actions", {
      standardId,
      clientOrgIds: [clients[2]?.id],
    });
    expect(gamma.status).toBe(201);
    expect((gamma.body as TAction).clients).toEqual([
      expect.objectContaining({
        orgId: clients[2]?.id,
        status: "SKIPPED",
        error: expect.objectContaining({ code: "not_affected" }),
      }),
    ]);
    // Another partner's standard is 404.
    const theirs = await call(rival, "POST", "/api/partner/actions", { standardId });
    expect(theirs.status).toBe(404);
  });
});

describe("partner actions: access and input", () => {
  it("refuses bad input with 400, members with 403, non-partners with partner_required", async () => {
    for (const body of [
      {},
      { campaignId: "cmp_x", standardId: "std_x" },
      { campaignId: "cmp_x", rule: "min_score" },
      { campaignId: "cmp_x", clientOrgIds: [] },
      { campaignId: "cmp_x", clientOrgIds: ["a", "a"] },
      { campaignId: 7 },
      { campaignId: "cmp_x", extra: true },
    ]) {
      const res = await call(msp, "POST", "/api/partner/actions", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
    const unknown = await call(msp, "POST", "/api/partner/actions", { campaignId: "cmp_nope" });
    expect(unknown.status).toBe(404);
    const member = await gw.createActor({ orgId: msp.orgId, role: "member" });
    const asMember = await call(member, "POST", "/api/partner/actions", { campaignId: "cmp_nope" });
    expect(asMember.status).toBe(403);
    expect(errorCode(asMember)).toBe("forbidden");
    const plain = await gw.createActor({ plan: "enterprise" });
    const notPartner = await call(plain, "GET", "/api/partner/actions");
    expect(errorCode(notPartner)).toBe("partner_required");
    expect((await call(msp, "GET", "/api/partner/actions?limit=0")).status).toBe(400);
  });

  it("hides another partner's action, and a client that withdrew its consent", async () => {
    const campaignId = await campaign("ai_agent", appSubject);
    const res = await call(msp, "POST", "/api/partner/actions", { campaignId });
    expect(res.status).toBe(201);
    const id = (res.body as TAction).id;
    expect((await call(rival, "GET", `/api/partner/actions/${id}`)).status).toBe(404);
    expect((await call(msp, "GET", "/api/partner/actions/pac_nope")).status).toBe(404);

    const beta = clients[1]?.id ?? "";
    await gw.db.db
      .update(partnerAccess)
      .set({ withdrawnAt: new Date() })
      .where(eq(partnerAccess.clientOrgId, beta));
    const after = await call(msp, "GET", `/api/partner/actions/${id}`);
    expect(after.status).toBe(200);
    expect((after.body as TAction).clients.map((p) => p.orgId)).not.toContain(beta);
    const again = await call(msp, "POST", "/api/partner/actions", { campaignId, clientOrgIds: [beta] });
    expect(again.status).toBe(404);
    const all = await call(msp, "POST", "/api/partner/actions", { campaignId });
    expect((all.body as TAction).clients.map((p) => p.orgId)).not.toContain(beta);
  });
});
