import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, organizations, partnerAccess, partnerDrift } from "@posture/db";
import { startReceiver, waitFor, type TReceiver } from "@posture/webhooks/testing";
import { type TTestGateway, type TTestResponse, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Standards and drift (issue 17, item 3) over HTTP on the real database: drift appears when a
// standard is assigned and when a client departs from it (a policy switched off, a score below
// the minimum, a domain trusted beyond the list), is announced once per new drift to the partner's
// webhook, resolves when the client complies again, and shows in the portfolio. Scans queue the
// recomputation (the in-process job runner runs it), as in production.

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TStandard = {
  id: string;
  name: string;
  policies: Array<{ id: string; name: string; match: Record<string, unknown> }>;
  preventionRules: Array<{ id: string; name: string; action: string; dryRun: boolean }>;
  trustedDomains: string[];
  minScore: number | null;
  assignments: { clientOrgIds: string[]; groupIds: string[] };
};
type TDrift = {
  id: string;
  standardId: string;
  clientOrgId: string;
  clientName: string;
  rule: string;
  kind: string;
  severity: string;
  detail: Record<string, unknown>;
  resolvedAt: string | null;
};
type TDriftPage = { drift: TDrift[]; total: number };
type TClient = { orgId: string; owner: TActor; connectorId: string };
type TDelivered = { event: string; data: Record<string, unknown> };

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
let receiver: TReceiver;
let msp: TActor;
let mspMember: TActor;
let rival: TActor;
let alpha: TClient;
let beta: TClient;
let foreign = "";
let std: TStandard;

const call = (a: TActor, method: string, path: string, body?: unknown) =>
  gw.request(method, path, { cookie: a.cookie, ip: freshIp(), ...(body === undefined ? {} : { body }) });
const ok = <T>(res: TTestResponse, status = 200): T => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body as T;
};

async function managedClient(name: string): Promise<TClient> {
  const org = await gw.createOrg({ plan: "business", name, managedByOrgId: msp.orgId });
  const owner = await gw.createActor({ orgId: org.id, role: "OWNER" });
  const created = ok<{ id: string }>(
    await call(owner, "POST", "/api/connectors", {
      type: "google_workspace",
      displayName: "Demo Drive",
      mode: "demo",
      config: { fileCount: 120 },
    }),
    201,
  );
  const t = { orgId: org.id, owner, connectorId: created.id };
  await scan(t);
  return t;
}

async function scan(t: TClient) {
  const s = ok<{ status: string }>(await call(t.owner, "POST", `/api/connectors/${t.connectorId}/sync`));
  expect(s.status).toBe("COMPLETE");
}

const driftOf = async (query: string, a: TActor = msp) =>
  ok<TDriftPage>(await gw.request("GET", `/api/partner/${query}`, { key: a.key, ip: freshIp() }));
const openRules = async (clientOrgId: string) =>
  (await driftOf(`standards/${std.id}/drift?clientOrgId=${clientOrgId}`)).drift.map((d) => d.rule).sort();
const delivered = () =>
  receiver.received
    .map((r) => JSON.parse(r.body) as TDelivered)
    .filter((d) => d.event === "partner.drift.detected");
const announced = (clientOrgId: string, rule: string) =>
  delivered().filter((d) => d.data.clientOrgId === clientOrgId && d.data.rule === rule);
const sweep = () =>
  gw.gateway.deps.jobs.runAndWait(
    "partner.drift.sweep",
    {},
    { jobId: `sweep-${Math.random()}`, timeoutMs: 20_000 },
  );

beforeAll(async () => {
  receiver = await startReceiver();
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  mspMember = await gw.createActor({ orgId: msp.orgId, role: "member" });
  rival = await gw.createActor({ plan: "enterprise", isPartner: true });
  ok(
    await call(msp, "POST", "/api/webhooks", { url: receiver.url, events: ["partner.drift.detected"] }),
    201,
  );
  alpha = await managedClient("Alpha Ltd");
  beta = await managedClient("Beta GmbH");
  foreign = (await gw.createOrg({ plan: "business", name: "Rival Client", managedByOrgId: rival.orgId })).id;
}, 60_000);
afterAll(async () => {
  await receiver.close();
});

describe("standards", () => {
  it("creates a standard in the client API's rule shapes; audited", async () => {
    std = ok<TStandard>(
      await call(msp, "POST", "/api/partner/standards", {
        name: "Baseline",
        description: "What every client holds",
        policies: [
          {
            name: "No public links to sensitive files",
            match: { categories: ["public_exposure"], minSeverity: "CRITICAL" },
          },
        ],
        preventionRules: [
          {
            name: "Revoke public links",
            match: { categories: ["public_exposure"] },
            action: "REVOKE_PUBLIC_LINK",
          },
        ],
        trustedDomains: ["partner-approved.com"],
        minScore: 0,
      }),
      201,
    );
    expect(std).toMatchObject({
      name: "Baseline",
      trustedDomains: ["partner-approved.com"],
      minScore: 0,
      assignments: { clientOrgIds: [], groupIds: [] },
    });
    expect(std.preventionRules[0]).toMatchObject({ action: "REVOKE_PUBLIC_LINK", dryRun: false });
    expect(std.policies[0]?.id).toMatch(/^[0-9a-f]{12}$/);
    const read = ok<TStandard>(await gw.request("GET", `/api/partner/standards/${std.id}`, { key: msp.key }));
    expect(read).toEqual(std);
    const list = ok<{ standards: TStandard[]; total: number }>(
      await call(mspMember, "GET", "/api/partner/standards"),
    );
    expect(list.total).toBe(1);
    const audited = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, msp.orgId), eq(auditLog.action, "PARTNER_STANDARD_CHANGED")));
    expect(audited.map((r) => r.target)).toContain(std.id);
  });

  it("assigned to a client: its drift is listed per rule, announced once, and shown in the portfolio", async () => {
    const assigned = ok<TStandard>(
      await call(msp, "PUT", `/api/partner/standards/${std.id}/assignments`, {
        clientOrgIds: [alpha.orgId],
        groupIds: [],
      }),
    );
    expect(assigned.assignments).toEqual({ clientOrgIds: [alpha.orgId], groupIds: [] });
    const prevention = `prevention:${std.preventionRules[0]?.id}`;
    // The client holds the default policy, but its public-link rule only alerts: weaker.
    await waitFor(async () => (await openRules(alpha.orgId)).includes(prevention), 15_000);
    expect(await openRules(alpha.orgId)).toEqual([prevention]);
    const [row] = (await driftOf(`standards/${std.id}/drift`)).drift;
    expect(row).toMatchObject({
      clientOrgId: alpha.orgId,
      clientName: "Alpha Ltd",
      kind: "prevention",
      severity: "HIGH",
      detail: { status: "weaker", clientAction: "ALERT_ONLY" },
      resolvedAt: null,
    });
    await waitFor(async () => announced(alpha.orgId, prevention).length === 1, 15_000);
    expect(announced(alpha.orgId, prevention)[0]?.data).toMatchObject({
      driftId: row?.id,
      standardId: std.id,
      standardName: "Baseline",
      clientName: "Alpha Ltd",
      severity: "HIGH",
    });
    // Beta holds no standard yet.
    expect(await openRules(beta.orgId)).toEqual([]);

    const portfolio = ok<{
      totals: { driftOpen: number };
      clients: Array<{ orgId: string; drift: { open: number; critical: number } }>;
    }>(await gw.request("GET", "/api/partner/reports/portfolio", { key: msp.key, ip: freshIp() }));
    expect(portfolio.clients.find((c) => c.orgId === alpha.orgId)?.drift).toEqual({ open: 1, critical: 0 });
    expect(portfolio.clients.find((c) => c.orgId === beta.orgId)?.drift).toEqual({ open: 0, critical: 0 });
    expect(portfolio.totals.driftOpen).toBe(1);

    // A recomputation with nothing changed announces nothing again.
    await sweep();
    expect(announced(alpha.orgId, prevention)).toHaveLength(1);
  });

  it("a client switching a policy off drifts after its next scan; switching it on resolves the drift", async () => {
    const policyRule = `policy:${std.policies[0]?.id}`;
    const { rules } = ok<{ rules: Array<{ id: string; match: Record<string, unknown> }> }>(
      await call(alpha.owner, "GET", "/api/policies"),
    );
    const held = rules.find(
      (r) =>
        JSON.stringify(r.match) ===
        JSON.stringify({ categories: ["public_exposure"], minSeverity: "CRITICAL" }),
    );
    expect(held).toBeDefined();
    ok(await call(alpha.owner, "PATCH", `/api/policies/${held?.id}`, { enabled: false }));
    await scan(alpha);
    await waitFor(async () => (await openRules(alpha.orgId)).includes(policyRule), 15_000);
    const row = (await driftOf(`drift?clientOrgId=${alpha.orgId}`)).drift.find((d) => d.rule === policyRule);
    expect(row).toMatchObject({
      severity: "CRITICAL",
      detail: { status: "disabled", clientRuleId: held?.id },
    });
    await waitFor(async () => announced(alpha.orgId, policyRule).length === 1, 15_000);
    expect(announced(alpha.orgId, policyRule)[0]?.data).toMatchObject({
      severity: "CRITICAL",
      driftId: row?.id,
    });

    ok(await call(alpha.owner, "PATCH", `/api/policies/${held?.id}`, { enabled: true }));
    await scan(alpha);
    await waitFor(async () => !(await openRules(alpha.orgId)).includes(policyRule), 15_000);
    const resolved = (await driftOf(`standards/${std.id}/drift?status=resolved`)).drift;
    expect(resolved).toEqual([expect.objectContaining({ id: row?.id, resolvedAt: expect.any(String) })]);
  });

  it("a score below the minimum and a domain trusted beyond the standard's list drift; both resolve", async () => {
    ok(await call(msp, "PATCH", `/api/partner/standards/${std.id}`, { minScore: 100 }));
    await waitFor(async () => (await openRules(alpha.orgId)).includes("min_score"), 15_000);
    const low = (await driftOf(`drift?clientOrgId=${alpha.orgId}`)).drift.find((d) => d.rule === "min_score");
    expect(low?.detail).toMatchObject({ status: "below_minimum", minScore: 100, score: expect.any(Number) });
    expect(Number(low?.detail.score)).toBeLessThan(100);

    for (const domain of ["outsider.io", "eu.partner-approved.com"]) {
      ok(await call(alpha.owner, "POST", "/api/sharing/trusted-domains", { domain, note: "" }), 201);
    }
    await sweep();
    const rules = await openRules(alpha.orgId);
    expect(rules).toContain("trusted_domain:outsider.io");
    // A domain below a listed one is within the standard.
    expect(rules).not.toContain("trusted_domain:eu.partner-approved.com");
    // The drift's event is delivered after the sweep commits it: wait for the delivery (a full
    // run on busy cores read the receiver before it came).
    await waitFor(async () => announced(alpha.orgId, "trusted_domain:outsider.io").length > 0, 15_000);
    expect(announced(alpha.orgId, "trusted_domain:outsider.io")).toHaveLength(1);

    ok(await call(msp, "PATCH", `/api/partner/standards/${std.id}`, { minScore: null, trustedDomains: [] }));
    await waitFor(
      async () =>
        (await openRules(alpha.orgId)).every((r) => r !== "min_score" && !r.startsWith("trusted_domain:")),
      15_000,
    );
  });

  it("assigned to a group: its clients drift, and drift and portfolio filter by group", async () => {
    const group = ok<{ id: string }>(
      await call(msp, "POST", "/api/partner/groups", { name: "Group B", clientOrgIds: [beta.orgId] }),
      201,
    );
    ok(
      await call(msp, "PUT", `/api/partner/standards/${std.id}/assignments`, {
        clientOrgIds: [alpha.orgId],
        groupIds: [group.id],
      }),
    );
    await waitFor(async () => (await openRules(beta.orgId)).length > 0, 15_000);
    const byGroup = await driftOf(`drift?groupId=${group.id}`);
    expect(byGroup.total).toBeGreaterThan(0);
    expect(new Set(byGroup.drift.map((d) => d.clientOrgId))).toEqual(new Set([beta.orgId]));
    const all = await driftOf("drift?limit=1");
    expect(all.total).toBe(byGroup.total + (await openRules(alpha.orgId)).length);
    expect(all.drift).toHaveLength(1);

    const portfolio = ok<{ clients: Array<{ orgId: string; drift: { open: number } }> }>(
      await gw.request("GET", `/api/partner/reports/portfolio?groupId=${group.id}`, {
        key: msp.key,
        ip: freshIp(),
      }),
    );
    expect(portfolio.clients.map((c) => c.orgId)).toEqual([beta.orgId]);
    expect(portfolio.clients[0]?.drift.open).toBe(byGroup.total);

    // Out of the group, out of the standard: its drift resolves.
    ok(await call(msp, "PUT", `/api/partner/groups/${group.id}/clients`, { clientOrgIds: [] }));
    await waitFor(async () => (await openRules(beta.orgId)).length === 0, 15_000);
  });

  it("a client that withdraws consent: its drift is hidden and frozen until it grants access again", async () => {
    const before = await openRules(alpha.orgId);
    expect(before.length).toBeGreaterThan(0);
    const setWithdrawn = (at: Date | null) =>
      gw.db.db
        .update(partnerAccess)
        .set({ withdrawnAt: at })
        .where(eq(partnerAccess.clientOrgId, alpha.orgId));
    await setWithdrawn(new Date());
    try {
      const res = await call(msp, "GET", `/api/partner/drift?clientOrgId=${alpha.orgId}`);
      expect(res.status).toBe(404);
      await sweep();
      const visible = await driftOf(`standards/${std.id}/drift?status=all`);
      expect(visible.drift.some((d) => d.clientOrgId === alpha.orgId)).toBe(false);
      const stored = await gw.db.db
        .select()
        .from(partnerDrift)
        .where(and(eq(partnerDrift.clientOrgId, alpha.orgId), isNull(partnerDrift.resolvedAt)));
      expect(stored.map((d) => d.rule).sort()).toEqual(before);
    } finally {
      await setWithdrawn(null);
    }
    expect(await openRules(alpha.orgId)).toEqual(before);
  });

  it("another partner's standard, client or group is 404, like an unknown id", async () => {
    const rivalGroup = ok<{ id: string }>(
      await call(rival, "POST", "/api/partner/groups", { name: "Theirs" }),
      201,
    );
    const pairs: Array<[TActor, string, string, unknown?]> = [
      [rival, "GET", `/api/partner/standards/${std.id}`],
      [rival, "PATCH", `/api/partner/standards/${std.id}`, { name: "Mine now" }],
      [rival, "DELETE", `/api/partner/standards/${std.id}`],
      [rival, "GET", `/api/partner/standards/${std.id}/drift`],
      [rival, "PUT", `/api/partner/standards/${std.id}/assignments`, { clientOrgIds: [], groupIds: [] }],
      [msp, "PUT", `/api/partner/standards/${std.id}/assignments`, { clientOrgIds: [foreign], groupIds: [] }],
      [
        msp,
        "PUT",
        `/api/partner/standards/${std.id}/assignments`,
        { clientOrgIds: [], groupIds: [rivalGroup.id] },
      ],
      [msp, "GET", `/api/partner/drift?clientOrgId=${foreign}`],
      [msp, "GET", `/api/partner/drift?groupId=${rivalGroup.id}`],
      [rival, "GET", `/api/partner/drift?clientOrgId=${alpha.orgId}`],
    ];
    for (const [actor, method, path, body] of pairs) {
      const res = await call(actor, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(errorCode(res)).toBe("not_found");
    }
    expect((await call(rival, "GET", "/api/partner/standards/std_unknown")).body).toEqual(
      (await call(rival, "GET", `/api/partner/standards/${std.id}`)).body,
    );
    // The rival sees none of it.
    expect((await driftOf("drift", rival)).total).toBe(0);
    expect(ok<TStandard>(await call(msp, "GET", `/api/partner/standards/${std.id}`)).name).toBe("Baseline");
  });

  it("roles: members read, ADMIN+ change; non-partners are refused", async () => {
    expect((await call(mspMember, "GET", `/api/partner/standards/${std.id}/drift`)).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "/api/partner/standards", { name: "By a member" }],
      ["PATCH", `/api/partner/standards/${std.id}`, { minScore: 1 }],
      ["PUT", `/api/partner/standards/${std.id}/assignments`, { clientOrgIds: [], groupIds: [] }],
      ["DELETE", `/api/partner/standards/${std.id}`],
    ] as const) {
      const res = await call(mspMember, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(errorCode(res)).toBe("forbidden");
    }
    const plain = await gw.createActor({ plan: "enterprise" });
    expect(errorCode(await call(plain, "GET", "/api/partner/drift"))).toBe("partner_required");
  });

  it("bad input is 400 invalid_input, a name in use 409", async () => {
    const bad: unknown[] = [
      {},
      { name: "x", unknown: 1 },
      { name: "x", minScore: 101 },
      { name: "x", minScore: 50.5 },
      { name: "x", minScore: "50" },
      { name: "x", policies: [{ name: "p", match: {} }] },
      { name: "x", policies: [{ name: "p", match: { categories: ["nope"] } }] },
      { name: "x", policies: [{ name: "p", match: { minSeverity: "HIGH" }, enabled: true }] },
      {
        name: "x",
        policies: [
          { name: "a", match: { categories: ["identity", "public_exposure"] } },
          { name: "b", match: { categories: ["public_exposure", "identity"] } },
        ],
      },
      {
        name: "x",
        preventionRules: [{ name: "p", match: { minSeverity: "LOW" }, action: "DELETE_EVERYTHING" }],
      },
      { name: "x", trustedDomains: ["https://example.com"] },
      { name: "x", trustedDomains: ["example.com", "example.com"] },
    ];
    for (const body of bad) {
      const res = await call(msp, "POST", "/api/partner/standards", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
    for (const q of [
      "drift?status=bogus",
      "drift?limit=0",
      "drift?limit=501",
      "drift?offset=x",
      "drift?nope=1",
    ]) {
      expect((await call(msp, "GET", `/api/partner/${q}`)).status, q).toBe(400);
    }
    const dupAssign = await call(msp, "PUT", `/api/partner/standards/${std.id}/assignments`, {
      clientOrgIds: [alpha.orgId, alpha.orgId],
      groupIds: [],
    });
    expect(dupAssign.status).toBe(400);
    const taken = await call(msp, "POST", "/api/partner/standards", { name: "Baseline" });
    expect(taken.status).toBe(409);
    expect(errorCode(taken)).toBe("conflict");
  });

  it("a client that moves to another partner has its old partner's drift resolved", async () => {
    const delta = await gw.createOrg({ plan: "business", name: "Delta AG", managedByOrgId: msp.orgId });
    ok(
      await call(msp, "PUT", `/api/partner/standards/${std.id}/assignments`, {
        clientOrgIds: [alpha.orgId, delta.id],
        groupIds: [],
      }),
    );
    // Never scanned, no rules of its own yet: the policy and the prevention rule are missing.
    await waitFor(async () => (await openRules(delta.id)).length === 2, 15_000);
    await gw.db.db
      .update(organizations)
      .set({ managedByOrgId: rival.orgId })
      .where(eq(organizations.id, delta.id));
    await sweep();
    const rows = await gw.db.db.select().from(partnerDrift).where(eq(partnerDrift.clientOrgId, delta.id));
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.resolvedAt !== null)).toBe(true);
    expect((await driftOf("drift", rival)).total).toBe(0);
  });

  it("deleting a standard removes its assignments and drift", async () => {
    expect((await driftOf(`standards/${std.id}/drift`)).total).toBeGreaterThan(0);
    ok(await call(msp, "DELETE", `/api/partner/standards/${std.id}`));
    expect((await call(msp, "GET", `/api/partner/standards/${std.id}`)).status).toBe(404);
    expect(await gw.db.db.select().from(partnerDrift).where(eq(partnerDrift.standardId, std.id))).toEqual([]);
    expect((await driftOf("drift")).total).toBe(0);
  });
});
