import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { oauthGrants } from "@posture/db";
import { PARTNER_RADAR_JOB } from "@posture/partner";
import { type TTestGateway, useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// The done-when, over HTTP: a partner with three demo clients, each scanned, sees one
// campaign once the same app is granted in two of them. Demo tenants are not independent: they
// share the behaviour stories (the same anomaly types within days of each other: anomaly
// campaigns, by the radar's own rule) and a catalog of apps (one the generator happened to date
// within the window in two tenants is a campaign too). So the test compares with the baseline.

const gw = useTestGateway();
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TCampaign = { kind: string; subject: string; clientCount: number; clientOrgIds: string[] };

const radar = (partnerOrgId: string) =>
  gw.gateway.deps.jobs.runAndWait(
    PARTNER_RADAR_JOB,
    { partnerOrgId },
    { jobId: `radar-${randomBytes(4).toString("hex")}`, timeoutMs: 30_000 },
  );

async function demoClient(partner: TActor, name: string) {
  const org = await gw.createOrg({ plan: "business", name, managedByOrgId: partner.orgId });
  const admin = await gw.createActor({ orgId: org.id });
  const created = await gw.request("POST", "/api/connectors", {
    cookie: admin.cookie,
    ip: freshIp(),
    body: { type: "google_workspace", displayName: "Demo", mode: "demo", demo: { files: 400 } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = (created.body as { id: string }).id;
  const scan = await gw.request("POST", `/api/connectors/${id}/sync`, {
    cookie: admin.cookie,
    ip: freshIp(),
  });
  expect(scan.status, JSON.stringify(scan.body)).toBe(200);
  return { orgId: org.id, connectorId: id };
}

describe("cross-client radar over demo clients", () => {
  it("sees one campaign when the same app is granted in two of three scanned demo clients", async () => {
    const msp = await gw.createActor({ plan: "enterprise", isPartner: true });
    const clients = [];
    for (const name of ["Demo A", "Demo B", "Demo C"]) clients.push(await demoClient(msp, name));
    await radar(msp.orgId);
    const list = async () => {
      const res = await gw.request("GET", "/api/partner/campaigns?status=ACTIVE", {
        key: msp.key,
        ip: freshIp(),
      });
      expect(res.status).toBe(200);
      return (res.body as { rows: TCampaign[] }).rows;
    };
    const baseline = await list();
    // Nothing is made of what every demo tenant has long held, or of its partners and mail.
    for (const c of baseline) expect(c.kind, JSON.stringify(c)).not.toBe("outside_domain");

    const clientId = `${randomBytes(5).toString("hex")}-new.apps.googleusercontent.com`;
    for (const c of clients.slice(0, 2)) {
      await gw.db.db.insert(oauthGrants).values({
        orgId: c.orgId,
        connectorId: c.connectorId,
        externalId: `grant-${clientId}`,
        clientId,
        label: "Quick Helper",
        kind: "oauth_app",
        publisher: "quickhelper.app",
        isKnownPublisher: false,
        scopes: ["https://www.googleapis.com/auth/drive"],
        userEmail: "user@demo.example",
        grantedAt: new Date(),
      });
    }
    await radar(msp.orgId);
    const after = await list();
    // Anomalies land after each scan (behaviour analytics runs later), so they may still arrive.
    const added = after.filter(
      (c) => c.kind !== "anomaly" && !baseline.some((b) => b.subject === c.subject && b.kind === c.kind),
    );
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ kind: "oauth_app", subject: clientId, clientCount: 2 });
    expect(added[0]?.clientOrgIds.sort()).toEqual(
      clients
        .slice(0, 2)
        .map((c) => c.orgId)
        .sort(),
    );
  });
});
