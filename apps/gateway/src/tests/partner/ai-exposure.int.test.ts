import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { connectors, findings, workspaceFiles, type TSeverity } from "@posture/db";
import { type TTestGateway, useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// A partner's AI readiness: per client (GET /partner/clients/{orgId}/exposure/ai, the client's
// own answer) and across the portfolio (GET /partner/exposure/ai: who is not ready), with consent.

const gw = useTestGateway();
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
let msp: TActor;
let acme: TActor; // business, 10 files, one CRITICAL org-wide link: round(1000 / (10 + 40)) = 20
let zen: TActor; // business, nothing overshared: 100
let small = ""; // starter: not available
let rivalClient = "";

const get = (path: string, who: { key?: string; cookie?: string }) =>
  gw.request("GET", path, { ...who, ip: freshIp() });

async function overshare(orgId: string, severities: TSeverity[]) {
  const db = gw.db.db;
  const connectorId = `con_${orgId}`;
  await db
    .insert(connectors)
    .values({ id: connectorId, orgId, type: "microsoft_365", displayName: "M", mode: "demo" });
  await db.insert(workspaceFiles).values(
    Array.from({ length: 10 }, (_, i) => ({
      id: `wsf_${orgId}_${i}`,
      orgId,
      connectorId,
      externalId: `x${i}`,
      name: `x${i}.docx`,
      mimeType: "application/msword",
      ownerEmail: "owner@acme.test",
      sensitivity: "low" as const,
      exposure: "private" as const,
      modifiedAt: new Date("2026-11-01T00:00:00Z"),
    })),
  );
  if (severities.length === 0) return;
  await db.insert(findings).values(
    severities.map((severity, i) => ({
      orgId,
      connectorId,
      connectorType: "microsoft_365",
      fingerprint: createHash("sha256").update(`${orgId}${i}`).digest("hex"),
      ruleId: "org_wide_link",
      category: "internal_exposure",
      severity,
      severityRank: { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1 }[severity],
      title: "Organization-wide link",
      resourceId: `x${i}`,
      resourceName: `x${i}.docx`,
      resourceType: "file",
    })),
  );
}

beforeAll(async () => {
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  const rival = await gw.createActor({ plan: "enterprise", isPartner: true });
  acme = await gw.createActor({
    orgId: (await gw.createOrg({ plan: "business", name: "Acme", managedByOrgId: msp.orgId })).id,
  });
  zen = await gw.createActor({
    orgId: (await gw.createOrg({ plan: "business", name: "Zen", managedByOrgId: msp.orgId })).id,
  });
  small = (await gw.createOrg({ plan: "starter", name: "Small", managedByOrgId: msp.orgId })).id;
  rivalClient = (await gw.createOrg({ plan: "business", name: "Rival client", managedByOrgId: rival.orgId }))
    .id;
  await overshare(acme.orgId, ["CRITICAL"]);
  await overshare(zen.orgId, []);
});

describe("GET /api/partner/exposure/ai", () => {
  it("lists the managed clients least ready first, counting those not ready", async () => {
    const res = await get("/api/partner/exposure/ai", { key: msp.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      clients: [
        {
          orgId: acme.orgId,
          name: "Acme",
          available: true,
          score: 20,
          grade: "F",
          ready: false,
          openFindings: 1,
        },
        {
          orgId: zen.orgId,
          name: "Zen",
          available: true,
          score: 100,
          grade: "A",
          ready: true,
          openFindings: 0,
        },
        {
          orgId: small,
          name: "Small",
          available: false,
          score: null,
          grade: null,
          ready: null,
          openFindings: null,
        },
      ],
      notReady: 1,
    });
    expect(JSON.stringify(res.body)).not.toContain(rivalClient);
  });

  it("leaves out a client that withdrew consent, and needs a partner on enterprise", async () => {
    const withdrawn = await gw.request("DELETE", "/api/partner-access", {
      cookie: zen.cookie,
      ip: freshIp(),
    });
    expect(withdrawn.status).toBe(200);
    try {
      const res = await get("/api/partner/exposure/ai", { key: msp.key });
      expect((res.body as { clients: Array<{ orgId: string }> }).clients.map((c) => c.orgId)).toEqual([
        acme.orgId,
        small,
      ]);
      expect((await get(`/api/partner/clients/${zen.orgId}/exposure/ai`, { key: msp.key })).status).toBe(404);
    } finally {
      expect(
        (await gw.request("PUT", "/api/partner-access", { cookie: zen.cookie, ip: freshIp() })).status,
      ).toBe(200);
    }
    expect((await get("/api/partner/exposure/ai", { key: acme.key })).status).toBe(403);
  });
});

describe("GET /api/partner/clients/{orgId}/exposure/ai", () => {
  it("answers the client's own /api/exposure/ai; 402 for a client below business, 404 for another partner's", async () => {
    const partner = await get(`/api/partner/clients/${acme.orgId}/exposure/ai`, { key: msp.key });
    expect(partner.status).toBe(200);
    const own = await get("/api/exposure/ai", { key: acme.key });
    expect(partner.body).toEqual(own.body);
    expect(partner.body).toMatchObject({ score: 20, grade: "F" });
    const starter = await get(`/api/partner/clients/${small}/exposure/ai`, { key: msp.key });
    expect([starter.status, (starter.body as { error: string }).error]).toEqual([
      402,
      "plan_upgrade_required",
    ]);
    expect((await get(`/api/partner/clients/${rivalClient}/exposure/ai`, { key: msp.key })).status).toBe(404);
  });
});
