import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anomalies,
  connectors,
  oauthGrants,
  partnerAccess,
  partnerGroupMembers,
  partnerGroups,
  workspaceFiles,
  workspaceShares,
} from "@posture/db";
import { PARTNER_CLIENT_JOB, PARTNER_RADAR_JOB, PARTNER_RADAR_SWEEP_JOB } from "@posture/partner";
import { startReceiver, verifyServiceSignature, waitFor, type TReceiver } from "@posture/webhooks/testing";
import { and, eq } from "drizzle-orm";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// The cross-client radar (issue 17, item 4): the stores a scan fills (grants, shares, anomalies)
// are seeded directly, then the job every managed client's scan queues recomputes the partner's
// campaigns; reads and the signed events go over HTTP.

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TCampaign = {
  id: string;
  kind: string;
  subject: string;
  title: string;
  severity: string;
  status: string;
  clientCount: number;
  clientOrgIds: string[];
  firstSeenAt: string;
  resolvedAt: string | null;
};
type TList = { rows: TCampaign[]; total: number; limit: number; offset: number; nextOffset: number | null };

let msp: TActor;
let rival: TActor;
let rx: TReceiver;
let secret = "";
const clients: Array<{ id: string; name: string; connectorId: string }> = [];
let rivalClient = { id: "", connectorId: "" };

const DAY = 86_400_000;
const APP = `${randomBytes(4).toString("hex")}-radar.apps.googleusercontent.com`;

afterAll(async () => {
  await rx?.close();
});

async function addClient(partnerOrgId: string, name: string) {
  const org = await gw.createOrg({ plan: "business", name, managedByOrgId: partnerOrgId });
  const [con] = await gw.db.db
    .insert(connectors)
    .values({ orgId: org.id, type: "google_workspace", displayName: "Drive", mode: "demo" })
    .returning({ id: connectors.id });
  if (!con) throw new Error("connector insert failed");
  return { id: org.id, name, connectorId: con.id };
}

async function grant(
  c: { id: string; connectorId: string },
  o: { clientId?: string; agedDays?: number; publisher?: string; kind?: "oauth_app" | "ai_agent" } = {},
) {
  const [row] = await gw.db.db
    .insert(oauthGrants)
    .values({
      orgId: c.id,
      connectorId: c.connectorId,
      externalId: `g-${randomBytes(4).toString("hex")}`,
      clientId: o.clientId ?? APP,
      label: "Shady Sync",
      kind: o.kind ?? "oauth_app",
      publisher: o.publisher ?? "shadysync.app",
      isKnownPublisher: false,
      scopes: ["https://www.googleapis.com/auth/drive"],
      userEmail: "someone@client.example",
      grantedAt: new Date(Date.now() - (o.agedDays ?? 1) * DAY),
    })
    .returning({ id: oauthGrants.id });
  if (!row) throw new Error("grant insert failed");
  return row.id;
}

async function share(c: { id: string; connectorId: string }, domain: string) {
  const fileId = `wsf_${randomBytes(6).toString("hex")}`;
  await gw.db.db.insert(workspaceFiles).values({
    id: fileId,
    orgId: c.id,
    connectorId: c.connectorId,
    externalId: fileId,
    name: "plan.xlsx",
    mimeType: "text/csv",
    ownerEmail: "owner@client.example",
    sensitivity: "high",
    exposure: "external",
    modifiedAt: new Date(Date.now() - 2 * DAY),
  });
  const id = `${fileId}|external_user`;
  await gw.db.db.insert(workspaceShares).values({
    id,
    orgId: c.id,
    connectorId: c.connectorId,
    fileId,
    fileExternalId: fileId,
    resourceName: "plan.xlsx",
    ownerEmail: "owner@client.example",
    sharingType: "external_user",
    target: `x@${domain}`,
    targetCount: 1,
    targetDomains: [domain],
    permission: "writer",
    sensitivity: "high",
    baseSeverity: "HIGH",
    severity: "HIGH",
    severityRank: 3,
    riskRank: 3000,
  });
  return id;
}

/** One pass of a partner's radar, as the coalesced job after its clients' scans runs it. */
const radar = (partnerOrgId: string) =>
  gw.gateway.deps.jobs.runAndWait(
    PARTNER_RADAR_JOB,
    { partnerOrgId },
    { jobId: `radar-${randomBytes(4).toString("hex")}`, timeoutMs: 20_000 },
  );

const get = (a: TActor, path: string) => gw.request("GET", path, { key: a.key, ip: freshIp() });
const list = async (a: TActor, query = "") => {
  const res = await get(a, `/api/partner/campaigns${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as TList;
};
const appCampaign = async () => (await list(msp, "?kind=oauth_app")).rows.find((c) => c.subject === APP);

beforeAll(async () => {
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  rival = await gw.createActor({ plan: "enterprise", isPartner: true });
  for (const name of ["Alpha Ltd", "Beta GmbH", "Gamma Inc"]) clients.push(await addClient(msp.orgId, name));
  rivalClient = await addClient(rival.orgId, "Rival Client");
  rx = await startReceiver();
  const sub = await gw.request("POST", "/api/webhooks", {
    cookie: msp.cookie,
    ip: freshIp(),
    body: { url: rx.url, events: ["portfolio.campaign.detected", "portfolio.campaign.updated"] },
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  secret = (sub.body as { secret: string }).secret;
});

const client = (i: number) => () => {
  const c = clients[i];
  if (!c) throw new Error("client not seeded");
  return c;
};
const alpha = client(0);
const beta = client(1);
const gamma = client(2);

describe("cross-client radar", () => {
  it("one app granted in two clients is one campaign, announced signed to the partner", async () => {
    await grant(alpha());
    await grant(alpha(), { agedDays: 3 });
    await grant(beta());
    // The same app in another partner's client is none of this partner's business.
    await grant(rivalClient);
    // What a managed client's scan queues: its drift, then a coalesced pass of its partner's radar.
    await gw.gateway.deps.jobs.runAndWait(
      PARTNER_CLIENT_JOB,
      { clientOrgId: alpha().id },
      { jobId: `client-${randomBytes(4).toString("hex")}`, timeoutMs: 20_000 },
    );
    await waitFor(async () => (await appCampaign()) ?? false, 15_000);

    const body = await list(msp);
    const c = body.rows.filter((r) => r.subject === APP);
    expect(c).toHaveLength(1);
    expect(c[0]).toMatchObject({
      kind: "oauth_app",
      status: "ACTIVE",
      clientCount: 2,
      title: "OAuth app 'Shady Sync' granted in 2 clients",
      // An unverified publisher with drive-wide scope.
      severity: "HIGH",
    });
    expect(c[0]?.clientOrgIds.sort()).toEqual([alpha().id, beta().id].sort());

    const r = await waitFor(async () =>
      rx.received.find((x) => x.headers["x-service-event"] === "portfolio.campaign.detected"),
    );
    expect(await verifyServiceSignature(secret, r)).toBe(true);
    const payload = JSON.parse(r.body) as { event: string; data: Record<string, unknown> };
    expect(payload.data).toMatchObject({
      campaignId: c[0]?.id,
      kind: "oauth_app",
      subject: APP,
      clientCount: 2,
      link: expect.stringMatching(new RegExp(`/api/partner/campaigns/${c[0]?.id ?? "x"}$`)),
    });

    // A second pass with nothing new announces nothing and changes nothing.
    await radar(msp.orgId);
    expect((await appCampaign())?.id).toBe(c[0]?.id);
    expect(rx.received).toHaveLength(1);
  });

  it("shows clients by name with their evidence; 404 for the rival and for nonsense", async () => {
    const c = await appCampaign();
    const res = await get(msp, `/api/partner/campaigns/${c?.id ?? ""}`);
    expect(res.status).toBe(200);
    const detail = res.body as {
      label: string;
      clients: Array<{
        orgId: string;
        name: string;
        evidence: { type: string; ids: string[]; count: number };
      }>;
    };
    expect(detail.label).toBe("Shady Sync");
    const a = detail.clients.find((x) => x.orgId === alpha().id);
    expect(a).toMatchObject({ name: "Alpha Ltd", evidence: { type: "grant", count: 2 } });
    expect(a?.evidence.ids).toHaveLength(2);
    for (const path of [`/api/partner/campaigns/${c?.id ?? ""}`, "/api/partner/campaigns/cmp_nope"]) {
      const other = await get(path.endsWith("nope") ? msp : rival, path);
      expect(other.status).toBe(404);
      expect(errorCode(other)).toBe("not_found");
    }
    // The rival's own radar sees one client only: no campaign.
    await radar(rival.orgId);
    expect((await list(rival)).total).toBe(0);
  });

  it("a third client joining is an update event with the wider client list", async () => {
    await grant(gamma(), { agedDays: 400 });
    await radar(msp.orgId);
    const c = await appCampaign();
    expect(c).toMatchObject({ clientCount: 3, title: "OAuth app 'Shady Sync' granted in 3 clients" });
    const r = await waitFor(async () =>
      rx.received.find((x) => x.headers["x-service-event"] === "portfolio.campaign.updated"),
    );
    expect(await verifyServiceSignature(secret, r)).toBe(true);
    expect((JSON.parse(r.body) as { data: { clientCount: number } }).data.clientCount).toBe(3);
  });

  it("a client that withdraws consent leaves the campaign at once, and for good on the next pass", async () => {
    await gw.db.db
      .update(partnerAccess)
      .set({ withdrawnAt: new Date() })
      .where(eq(partnerAccess.clientOrgId, gamma().id));
    const now = await appCampaign();
    expect(now?.clientOrgIds).not.toContain(gamma().id);
    expect(now?.clientCount).toBe(2);
    await radar(msp.orgId);
    const detail = await get(msp, `/api/partner/campaigns/${now?.id ?? ""}`);
    const body = detail.body as { clients: Array<{ orgId: string }>; clientCount: number };
    expect(body.clients.map((x) => x.orgId)).not.toContain(gamma().id);
    expect(body.clientCount).toBe(2);
  });

  it("resolves when fewer than two clients still have the app, keeping where it had spread", async () => {
    await gw.db.db
      .delete(oauthGrants)
      .where(and(eq(oauthGrants.orgId, beta().id), eq(oauthGrants.clientId, APP)));
    await radar(msp.orgId);
    const resolved = await list(msp, "?status=RESOLVED");
    const c = resolved.rows.find((r) => r.subject === APP);
    expect(c).toMatchObject({ status: "RESOLVED", clientCount: 2, resolvedAt: expect.any(String) });
    expect(c?.clientOrgIds.sort()).toEqual([alpha().id, beta().id].sort());
    expect((await list(msp, "?status=ACTIVE")).rows.find((c) => c.subject === APP)).toBeUndefined();
  });

  it("is detected again, the same record, when the app spreads again", async () => {
    const before = (await list(msp, "?status=RESOLVED")).rows.find((c) => c.subject === APP);
    await grant(beta());
    await radar(msp.orgId);
    const again = await appCampaign();
    expect(again).toMatchObject({ id: before?.id, status: "ACTIVE", clientCount: 2, resolvedAt: null });
    await waitFor(
      async () =>
        rx.received.filter((x) => x.headers["x-service-event"] === "portfolio.campaign.detected").length ===
        2,
    );
    // Back to resolved for the tests after this one.
    await gw.db.db
      .delete(oauthGrants)
      .where(and(eq(oauthGrants.orgId, beta().id), eq(oauthGrants.clientId, APP)));
    await radar(msp.orgId);
  });

  it("correlates outside domains and anomaly types; first-party and personal mail are benign", async () => {
    for (const c of [alpha(), beta()]) {
      await share(c, "dropzone-exfil.io");
      await share(c, "gmail.com");
      await grant(c, { clientId: "first-party-google", publisher: "Google LLC" });
      await gw.db.db.insert(anomalies).values({
        orgId: c.id,
        principal: "someone@client.example",
        type: "sharing_spike",
        window: "2026-W48",
        severity: "HIGH",
        severityRank: 3,
        confidence: 0.9,
        at: new Date(Date.now() - DAY),
        observed: 40,
        expected: 2,
        periodsLearned: 8,
      });
    }
    await radar(msp.orgId);
    const subjects = (await list(msp, "?status=ACTIVE")).rows.map((c) => `${c.kind}:${c.subject}`);
    expect(subjects).toContain("outside_domain:dropzone-exfil.io");
    expect(subjects).toContain("anomaly:sharing_spike");
    expect(subjects).not.toContain("outside_domain:gmail.com");
    expect(subjects).not.toContain("oauth_app:first-party-google");
  });

  it("pages, filters by kind, group and minClients, and refuses bad input", async () => {
    const all = await list(msp, "?status=ACTIVE");
    expect(all.total).toBe(2);
    const page = await list(msp, "?status=ACTIVE&limit=1&offset=1");
    expect(page).toMatchObject({ total: 2, limit: 1, offset: 1, nextOffset: null });
    expect(page.rows).toHaveLength(1);
    expect((await list(msp, "?kind=anomaly")).rows.map((c) => c.subject)).toEqual(["sharing_spike"]);
    expect((await list(msp, "?minClients=3")).total).toBe(0);

    const [group] = await gw.db.db
      .insert(partnerGroups)
      .values({ partnerOrgId: msp.orgId, name: "Gamma only" })
      .returning({ id: partnerGroups.id });
    await gw.db.db.insert(partnerGroupMembers).values({ groupId: group?.id ?? "", clientOrgId: gamma().id });
    expect((await list(msp, `?groupId=${group?.id ?? ""}`)).total).toBe(0);
    await gw.db.db.insert(partnerGroupMembers).values({ groupId: group?.id ?? "", clientOrgId: alpha().id });
    expect((await list(msp, `?groupId=${group?.id ?? ""}&status=ACTIVE`)).total).toBe(2);
    const foreign = await get(rival, `/api/partner/campaigns?groupId=${group?.id ?? ""}`);
    expect(foreign.status).toBe(404);

    for (const q of ["?limit=0", "?limit=501", "?kind=worm", "?status=OPEN", "?minClients=x", "?sort=1"]) {
      const res = await get(msp, `/api/partner/campaigns${q}`);
      expect(res.status, q).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
  });

  it("the periodic sweep runs every partner's radar and announces nothing already announced", async () => {
    const before = rx.received.length;
    const listed = await list(msp);
    const swept = await gw.gateway.deps.jobs.runAndWait<{ partners: number }>(
      PARTNER_RADAR_SWEEP_JOB,
      {},
      { jobId: `sweep-${randomBytes(4).toString("hex")}`, timeoutMs: 30_000 },
    );
    expect(swept.partners).toBeGreaterThanOrEqual(2);
    expect(await list(msp)).toEqual(listed);
    expect(rx.received).toHaveLength(before);
  });

  it("403 partner_required for a non-partner, 402 below enterprise", async () => {
    const plain = await gw.createActor({ plan: "enterprise" });
    expect(errorCode(await get(plain, "/api/partner/campaigns"))).toBe("partner_required");
    const small = await gw.createActor({ plan: "business", isPartner: true });
    expect((await get(small, "/api/partner/campaigns")).status).toBe(402);
  });
});
