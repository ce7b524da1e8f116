import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog } from "@posture/db";
import { type TTestGateway, type TTestResponse, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Partner-scoped reads of a managed client (issue 17, item 1): the client's own procedures'
// shapes, for the partner, with the partner's reach and the client's plan.

const gw = useTestGateway();
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
let msp: TActor; // the partner's OWNER
let mspMember: TActor; // a member of the same partner
let rival: TActor; // another partner
let acme: TActor; // msp's client (business), scanned, OWNER
let small: TActor; // msp's client on the starter plan
let rivalClient = "";
let unmanaged = "";
let acmeIncident: { id: string; deadlines: Array<{ regulation: string; dueAt: string; status: string }> };

const get = (path: string, who: { key?: string; cookie?: string }) =>
  gw.request("GET", path, { ...who, ip: freshIp() });
const asKey = (a: TActor) => ({ key: a.key });
const asSession = (a: TActor) => ({ cookie: a.cookie });

async function scan(a: TActor) {
  const created = await gw.request("POST", "/api/connectors", {
    cookie: a.cookie,
    ip: freshIp(),
    body: { type: "google_workspace", displayName: "Demo Drive", mode: "demo", config: { fileCount: 300 } },
  });
  expect(created.status).toBe(201);
  const id = (created.body as { id: string }).id;
  const synced = await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie, ip: freshIp() });
  expect(synced.status).toBe(200);
}

beforeAll(async () => {
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  mspMember = await gw.createActor({ orgId: msp.orgId, role: "member" });
  rival = await gw.createActor({ plan: "enterprise", isPartner: true });
  const acmeOrg = await gw.createOrg({ plan: "business", name: "Acme Ltd", managedByOrgId: msp.orgId });
  acme = await gw.createActor({ orgId: acmeOrg.id });
  const smallOrg = await gw.createOrg({ plan: "starter", name: "Small Co", managedByOrgId: msp.orgId });
  small = await gw.createActor({ orgId: smallOrg.id });
  const rc = await gw.createOrg({ plan: "business", name: "Rival Client", managedByOrgId: rival.orgId });
  rivalClient = rc.id;
  unmanaged = (await gw.createOrg({ plan: "enterprise", name: "Loner" })).id;
  await scan(acme);
  await scan(await gw.createActor({ orgId: rc.id }));
  const incident = await gw.request("POST", "/api/incidents", {
    key: acme.key,
    ip: freshIp(),
    body: { title: "Client breach", priority: "P1" },
  });
  expect(incident.status, incident.text).toBe(201);
  acmeIncident = incident.body as typeof acmeIncident;
}, 120_000);

const partnerPath = (orgId: string, read: string, query = "") =>
  `/api/partner/clients/${orgId}/${read}${query}`;

/** Each read: the client's own path (and how it must be called), the partner's suffix, a query. */
const READS = [
  { read: "findings", own: "/api/findings", query: "?limit=25&severity=HIGH", session: false },
  { read: "findings", own: "/api/findings", query: "?status=all&limit=7&offset=3", session: false },
  { read: "agents", own: "/api/agent-guard/inventory", query: "", session: true },
  { read: "sharing/overview", own: "/api/sharing/overview", query: "", session: true },
  { read: "compliance/dashboard", own: "/api/compliance/dashboard", query: "", session: false },
  { read: "exposure/ai", own: "/api/exposure/ai", query: "", session: false },
  { read: "timeline", own: "/api/timeline", query: "?limit=40", session: false },
  { read: "timeline", own: "/api/timeline", query: "?limit=10&significant=true", session: false },
  { read: "incidents", own: "/api/incidents", query: "", session: false },
] as const;

describe("GET /api/partner/clients/{orgId}/…", () => {
  it("answers each read exactly as the client's own endpoint does", { timeout: 60_000 }, async () => {
    for (const r of READS) {
      // A first read records the partner's visit in the client's trail (the timeline shows it);
      // the next ones within the window write nothing, so the data compared is the same.
      expect((await get(partnerPath(acme.orgId, r.read, r.query), asKey(msp))).status).toBe(200);
      const own = await get(`${r.own}${r.query}`, r.session ? asSession(acme) : asKey(acme));
      expect(own.status, r.own).toBe(200);
      const byKey = await get(partnerPath(acme.orgId, r.read, r.query), asKey(msp));
      const bySession = await get(partnerPath(acme.orgId, r.read, r.query), asSession(msp));
      expect(byKey.status).toBe(200);
      expect(byKey.body, `${r.read}${r.query}`).toEqual(own.body);
      expect(bySession.body).toEqual(own.body);
    }
  });

  it("holds real data: findings, agents, shares, frameworks and the partner's visit", async () => {
    const body = async <T>(read: string, query = "") =>
      (await get(partnerPath(acme.orgId, read, query), asKey(msp))).body as T;
    const findings = await body<{ findings: unknown[]; total: number }>("findings");
    expect(findings.total).toBeGreaterThan(0);
    expect((await body<{ agents: unknown[] }>("agents")).agents.length).toBeGreaterThan(0);
    const sharing = await body<{ overview: { totalExternalFiles: number } }>("sharing/overview");
    expect(sharing.overview.totalExternalFiles).toBeGreaterThan(0);
    const dash = await body<{ frameworks: Array<{ id: string }> }>("compliance/dashboard");
    expect(dash.frameworks.map((f) => f.id)).toContain("soc2");
    const timeline = await body<{ items: Array<{ kind: string; title: string }> }>("timeline", "?limit=100");
    expect(timeline.items.some((i) => i.kind === "finding")).toBe(true);
    expect(timeline.items.some((i) => i.kind === "audit" && i.title.includes("PARTNER_CLIENT_READ"))).toBe(
      true,
    );
  });

  it("shows each client's incidents with their running regulatory clocks", async () => {
    const res = await get(partnerPath(acme.orgId, "incidents"), asKey(msp));
    expect(res.status, res.text).toBe(200);
    const rows = (res.body as { incidents: Array<{ id: string; deadlines: unknown }> }).incidents;
    expect(rows.map((r) => r.id)).toEqual([acmeIncident.id]);
    expect(rows[0]?.deadlines).toEqual(acmeIncident.deadlines);
    expect(acmeIncident.deadlines.map((d) => [d.regulation, d.status])).toEqual([
      ["gdpr", "running"],
      ["hipaa", "running"],
    ]);
    // The client's own plan gates it, as GET /api/incidents does (business+).
    const starter = await get(partnerPath(small.orgId, "incidents"), asKey(msp));
    expect(starter.status).toBe(402);
    expect(starter.body).toMatchObject({ clientPlan: "starter", upgrade: { requiredPlan: "business" } });
  });

  it("404 for another partner's client, an unmanaged organization, its own and an unknown id", async () => {
    const bodies = new Set<string>();
    for (const id of [rivalClient, unmanaged, msp.orgId, "org_nope"]) {
      for (const read of ["findings", "agents", "sharing/overview", "compliance/dashboard", "timeline"]) {
        const res = await get(partnerPath(id, read), asKey(msp));
        expect(res.status, `${read} ${id}`).toBe(404);
        expect(errorCode(res)).toBe("not_found");
        bodies.add(JSON.stringify(res.body));
      }
    }
    // One answer whatever the reason: nothing tells them apart.
    expect(bodies.size).toBe(1);
    // The rival reads its own client, not msp's.
    expect((await get(partnerPath(rivalClient, "findings"), asKey(rival))).status).toBe(200);
    expect((await get(partnerPath(acme.orgId, "findings"), asKey(rival))).status).toBe(404);
  });

  it("403 partner_required for a non-partner (the client itself too), 402 below enterprise", async () => {
    const plain = await gw.createActor({ plan: "enterprise" });
    for (const a of [plain, acme]) {
      const res = await get(partnerPath(acme.orgId, "findings"), asKey(a));
      expect(res.status).toBe(403);
      expect(errorCode(res)).toBe("partner_required");
    }
    const cheap = await gw.createActor({ plan: "business", isPartner: true });
    const org = await gw.createOrg({ plan: "business", managedByOrgId: cheap.orgId });
    const res = await get(partnerPath(org.id, "findings"), asKey(cheap));
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      error: "plan_upgrade_required",
      upgrade: { requiredPlan: "enterprise" },
    });
  });

  it("applies the client's plan to the client's data: 402 naming the client's plan", async () => {
    const agents = await get(partnerPath(small.orgId, "agents"), asKey(msp));
    expect(agents.status).toBe(402);
    expect(agents.body).toMatchObject({
      error: "plan_upgrade_required",
      clientPlan: "starter",
      upgrade: { feature: "agentGuard", requiredPlan: "team" },
    });
    const dash = await get(partnerPath(small.orgId, "compliance/dashboard"), asKey(msp));
    expect(dash.status).toBe(402);
    expect(dash.body).toMatchObject({ clientPlan: "starter", upgrade: { requiredPlan: "business" } });
    // What the client's plan allows, it reads: the same as the client's own.
    const own = await get("/api/findings", asKey(acme));
    expect(own.status).toBe(200);
    expect((await get(partnerPath(small.orgId, "findings"), asKey(msp))).status).toBe(200);
    // Reach first: another partner's starter client is a 404, never a 402 that reveals its plan.
    const hidden = await gw.createOrg({ plan: "starter", managedByOrgId: rival.orgId });
    expect((await get(partnerPath(hidden.id, "agents"), asKey(msp))).status).toBe(404);
  });

  it("applies the client endpoint's role to the partner user", async () => {
    for (const read of ["agents", "sharing/overview"]) {
      const res = await get(partnerPath(acme.orgId, read), asKey(mspMember));
      expect(res.status, read).toBe(403);
      expect(errorCode(res)).toBe("forbidden");
    }
    expect((await get(partnerPath(acme.orgId, "findings"), asKey(mspMember))).status).toBe(200);
    // The timeline's audit entries are the audit log's readers' (ADMIN+), as for the client.
    const timeline = await get(partnerPath(acme.orgId, "timeline", "?limit=100"), asKey(mspMember));
    expect(timeline.status).toBe(200);
    const kinds = (timeline.body as { items: Array<{ kind: string }> }).items.map((i) => i.kind);
    expect(kinds.length).toBeGreaterThan(0);
    expect(kinds).not.toContain("audit");
  });

  it("400 for input the client's endpoint refuses, after the partner checks", async () => {
    for (const q of ["?limit=0", "?limit=501", "?severity=SEVERE", "?bogus=1"]) {
      const res = await get(partnerPath(acme.orgId, "findings", q), asKey(msp));
      expect(res.status, q).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
    const cursor = await get(partnerPath(acme.orgId, "timeline", "?before=not-a-cursor"), asKey(msp));
    expect(cursor.status).toBe(400);
    const extra = await get(partnerPath(acme.orgId, "agents", "?limit=5"), asKey(msp));
    expect(extra.status).toBe(400);
  });

  it("records the partner's reads in the client's audit trail, once per user and read per window", async () => {
    const reader = await gw.createActor({ orgId: msp.orgId, role: "ADMIN" });
    const readerRows = () =>
      gw.db.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.orgId, acme.orgId), eq(auditLog.userId, reader.user.id)));
    // A read the client's service refuses (a cursor that is none) records nothing.
    const refused = await get(partnerPath(acme.orgId, "timeline", "?before=not-a-cursor"), asKey(reader));
    expect(refused.status).toBe(400);
    expect(await readerRows()).toHaveLength(0);
    for (let i = 0; i < 3; i++) {
      expect((await get(partnerPath(acme.orgId, "findings", `?offset=${i}`), asKey(reader))).status).toBe(
        200,
      );
    }
    expect((await get(partnerPath(acme.orgId, "timeline"), asSession(reader))).status).toBe(200);
    const rows = await gw.db.db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.orgId, acme.orgId),
          eq(auditLog.action, "PARTNER_CLIENT_READ"),
          eq(auditLog.userId, reader.user.id),
        ),
      );
    expect(rows.map((r) => r.metadata).sort((a, b) => String(a.read).localeCompare(String(b.read)))).toEqual([
      { partnerOrgId: msp.orgId, read: "findings" },
      { partnerOrgId: msp.orgId, read: "timeline" },
    ]);
    expect(rows.every((r) => r.target === msp.orgId && r.userEmail === reader.user.email)).toBe(true);
    // The client reads them in its own audit log; the partner's trail holds none of its reads.
    const log: TTestResponse = await get("/api/audit?action=PARTNER_CLIENT_READ&limit=100", asKey(acme));
    expect(log.status).toBe(200);
    const entries = (log.body as { entries: Array<{ userEmail: string }> }).entries;
    expect(entries.filter((e) => e.userEmail === reader.user.email)).toHaveLength(2);
    const own = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, msp.orgId), eq(auditLog.action, "PARTNER_CLIENT_READ")));
    expect(own).toHaveLength(0);
    // A refused read (404) leaves nothing in anyone's trail.
    expect((await get(partnerPath(rivalClient, "findings"), asKey(reader))).status).toBe(404);
    const leaked = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, rivalClient), eq(auditLog.userId, reader.user.id)));
    expect(leaked).toHaveLength(0);
  });
});
