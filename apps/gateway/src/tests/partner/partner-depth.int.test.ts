import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { demoOverlayStore } from "@posture/db";
import { waitFor } from "@posture/webhooks/testing";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Issue 17's done-when, from outside over HTTP: a partner with three demo clients sees one campaign
// when the same app is granted at the source in two of them (each client's own scan finds it),
// plans its revocation across both in one action, and each client's approver approves its own
// part; a client that withdraws consent disappears from the partner's reads at once. Plus the
// isolation both ways.

const gw = useTestGateway();
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TClient = { orgId: string; name: string; owner: TActor; connectorId: string };
type TCampaign = { id: string; kind: string; subject: string; clientCount: number; clientOrgIds: string[] };
type TAction = {
  id: string;
  clients: Array<{ orgId: string; remediationId: string | null; status: string }>;
};

const call = (a: TActor, method: string, path: string, body?: unknown) =>
  gw.request(method, path, { key: a.key, ip: freshIp(), ...(body === undefined ? {} : { body }) });

async function demoClient(partner: TActor, name: string): Promise<TClient> {
  const org = await gw.createOrg({ plan: "business", name, managedByOrgId: partner.orgId });
  const owner = await gw.createActor({ orgId: org.id, role: "OWNER" });
  const created = await gw.request("POST", "/api/connectors", {
    cookie: owner.cookie,
    ip: freshIp(),
    body: { type: "google_workspace", displayName: `${name} Google`, mode: "demo", demo: { files: 300 } },
  });
  expect(created.status, created.text).toBe(201);
  const connectorId = (created.body as { id: string }).id;
  await sync(owner, connectorId);
  return { orgId: org.id, name, owner, connectorId };
}

async function sync(owner: TActor, connectorId: string) {
  const scan = await gw.request("POST", `/api/connectors/${connectorId}/sync`, {
    cookie: owner.cookie,
    ip: freshIp(),
  });
  expect(scan.status, scan.text).toBe(200);
}

/** A user of the client grants an unvetted app broad Drive access: a change at the source, as the sandbox makes it. */
async function grantAtSource(c: TClient, clientId: string) {
  const users = await gw.request("GET", "/api/inventory?type=users&limit=1", {
    cookie: c.owner.cookie,
    ip: freshIp(),
  });
  const userEmail = (users.body as { rows: Array<{ email: string }> }).rows[0]?.email;
  expect(userEmail, users.text).toBeTruthy();
  const id = `e2e-grant-${randomBytes(4).toString("hex")}`;
  await demoOverlayStore(gw.db.db, c.connectorId).put(`grant:${id}`, {
    op: "added",
    v: Date.now(),
    grant: {
      id,
      clientId,
      label: "Quick Helper",
      kind: "oauth_app",
      publisher: "quickhelper.example",
      isKnownPublisher: false,
      scopes: ["https://www.googleapis.com/auth/drive"],
      userEmail,
      grantedAt: new Date().toISOString(),
    },
  });
}

describe("partner depth, end to end over HTTP", () => {
  it("one campaign, one action across two clients, each client approves its own part, withdrawal", async () => {
    const msp = await gw.createActor({ plan: "enterprise", isPartner: true });
    const clients: TClient[] = [];
    for (const name of ["Acme E2E", "Bolt E2E", "Cyan E2E"]) clients.push(await demoClient(msp, name));
    const [a, b, c] = clients as [TClient, TClient, TClient];

    const clientId = `${BigInt(`0x${randomBytes(5).toString("hex")}`)}-e2e.apps.googleusercontent.com`;
    const campaignOf = async () => {
      const res = await call(msp, "GET", "/api/partner/campaigns?kind=oauth_app&status=ACTIVE&limit=500");
      expect(res.status, res.text).toBe(200);
      return (res.body as { rows: TCampaign[] }).rows.filter((r) => r.subject === clientId);
    };
    expect(await campaignOf()).toEqual([]);

    // Granted in A and B at the source; their own scans find it; the radar follows the scans.
    for (const x of [a, b]) {
      await grantAtSource(x, clientId);
      await sync(x.owner, x.connectorId);
    }
    const [campaign] = await waitFor(async () => {
      const found = await campaignOf();
      return found.length > 0 ? found : null;
    }, 30_000);
    expect(await campaignOf()).toHaveLength(1);
    expect(campaign).toMatchObject({ kind: "oauth_app", subject: clientId, clientCount: 2 });
    expect([...(campaign?.clientOrgIds ?? [])].sort()).toEqual([a.orgId, b.orgId].sort());

    // One action: a plan in each client that has the app; the third is told why not.
    const planned = await call(msp, "POST", "/api/partner/actions", { campaignId: campaign?.id });
    expect(planned.status, planned.text).toBe(201);
    const action = planned.body as TAction;
    const part = (x: TClient) => action.clients.find((p) => p.orgId === x.orgId);
    for (const x of [a, b]) expect(part(x)).toMatchObject({ status: "PLANNED" });
    expect(part(c)?.remediationId ?? null).toBeNull();

    // The partner may not approve (the clients did not allow it); a client never reaches
    // another client's plan; each client's approver approves its own part.
    const aPlan = part(a)?.remediationId ?? "";
    const bPlan = part(b)?.remediationId ?? "";
    expect((await call(msp, "POST", `/api/remediations/${aPlan}/approve`)).status).toBe(403);
    expect(errorCode(await call(a.owner, "POST", `/api/remediations/${bPlan}/approve`))).toBe("not_found");
    for (const [x, id] of [
      [a, aPlan],
      [b, bPlan],
    ] as const) {
      const approved = await call(x.owner, "POST", `/api/remediations/${id}/approve`);
      expect(approved.status, approved.text).toBe(200);
      expect(approved.body).toMatchObject({ id, status: "APPROVED" });
    }
    const live = await call(msp, "GET", `/api/partner/actions/${action.id}`);
    expect(live.status, live.text).toBe(200);
    for (const x of [a, b])
      expect((live.body as TAction).clients.find((p) => p.orgId === x.orgId)).toMatchObject({
        status: "APPROVED",
      });

    // Isolation: a client is no partner, and sees nothing of the partner's other clients.
    expect(errorCode(await call(a.owner, "GET", "/api/partner/reports/portfolio"))).toBe("partner_required");
    expect(errorCode(await call(a.owner, "GET", `/api/partner/clients/${b.orgId}/findings`))).toBe(
      "partner_required",
    );

    // A withdraws its consent: gone from every partner read on the next request.
    expect((await call(msp, "GET", `/api/partner/clients/${a.orgId}/findings`)).status).toBe(200);
    const withdrawn = await call(a.owner, "DELETE", "/api/partner-access");
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(errorCode(await call(msp, "GET", `/api/partner/clients/${a.orgId}/findings`))).toBe("not_found");
    expect(errorCode(await call(msp, "GET", `/api/partner/reports/client/${a.orgId}`))).toBe("not_found");
    const portfolio = await call(msp, "GET", "/api/partner/reports/portfolio");
    const inPortfolio = (portfolio.body as { clients: Array<{ orgId: string }> }).clients.map((x) => x.orgId);
    expect(inPortfolio.sort()).toEqual([b.orgId, c.orgId].sort());
    const detail = await call(msp, "GET", `/api/partner/campaigns/${campaign?.id}`);
    expect(detail.status, detail.text).toBe(200);
    expect(JSON.stringify(detail.body)).not.toContain(a.orgId);
    expect(JSON.stringify((await call(msp, "GET", `/api/partner/actions/${action.id}`)).body)).not.toContain(
      a.orgId,
    );
  }, 180_000);
});
