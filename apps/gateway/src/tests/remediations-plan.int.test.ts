import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  auditLog,
  connectors,
  events,
  findings,
  oauthGrants,
  organizations,
  workspacePermissions,
  workspaceShares,
  workspaceUsers,
} from "@posture/db";
import { type TTestGateway, useTestGateway } from "../testing";
import { errorCode, freshIp } from "./helpers";

// The planning half of remediation (issue 19) over HTTP, on scanned demo sources: plan, predict,
// simulate, approve with four eyes, cancel, list, partner planning, quick wins.

const gw = useTestGateway();
type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;

type TStep = {
  id: string;
  action: string;
  connectorId: string;
  resource: Record<string, unknown>;
  before: Record<string, unknown>;
  after: Record<string, unknown> | null;
  reversible: boolean;
  irreversibleReason: string | null;
  findingIds: string[];
  people: string[];
  status: string;
};
type TPlan = {
  id: string;
  request: Record<string, unknown>;
  organizationId: string;
  status: string;
  steps: TStep[];
  predicted: { score: number; grade: string; scoreDelta: number; before: { score: number; grade: string } };
  controls: Array<{ framework: string; controlId: string; before: string; after: string }>;
  fixedFindingIds: string[];
  skipped: Array<{ findingId: string | null; reason: string }>;
  plannedBy: { email: string; organizationId: string };
  approvedBy: { email: string } | null;
  people: string[];
};
type TQuickWin = {
  action: string;
  title: string;
  findingIds: string[];
  findingCount: number;
  scoreDelta: number;
  steps: number;
  plan: { findingIds: string[] } | { quickWin: string } | null;
};

const call = (a: { key: string }, method: string, path: string, body?: unknown) =>
  gw.request(method, path, { key: a.key, ip: freshIp(), ...(body === undefined ? {} : { body }) });
/** The posture breakdown is a session endpoint. */
const breakdownOf = async (a: TActor) => {
  const res = await gw.request("GET", "/api/posture/breakdown", { cookie: a.cookie, ip: freshIp() });
  expect(res.status).toBe(200);
  return res.body as { score: number; quickWins: TQuickWin[] };
};

/** A demo source (Google by default), scanned, with write access on. */
async function scannedDemo(a: TActor, displayName = "Demo Drive", type = "google_workspace") {
  const created = await gw.request("POST", "/api/connectors", {
    cookie: a.cookie,
    ip: freshIp(),
    body: { type, displayName, mode: "demo", config: { fileCount: 400 } },
  });
  expect(created.status).toBe(201);
  const id = (created.body as { id: string }).id;
  const sync = await gw.request("POST", `/api/connectors/${id}/sync`, { cookie: a.cookie, ip: freshIp() });
  expect(sync.status).toBe(200);
  await gw.db.db.update(connectors).set({ writeAccess: true }).where(eq(connectors.id, id));
  return id;
}

async function openFindings(orgId: string, ruleId: string) {
  return gw.db.db
    .select({ id: findings.id, details: findings.details, severity: findings.severity })
    .from(findings)
    .where(and(eq(findings.orgId, orgId), eq(findings.ruleId, ruleId), eq(findings.status, "OPEN")))
    .orderBy(findings.id);
}

let owner: TActor;
let other: TActor;
let connectorId = "";

beforeAll(async () => {
  owner = await gw.createActor({ plan: "business", role: "OWNER" });
  other = await gw.createActor({ plan: "business", role: "OWNER" });
  connectorId = await scannedDemo(owner);
  await scannedDemo(other, "Other Drive");
}, 120_000);

describe("quick wins and the plan that carries them out", () => {
  it("the demo breakdown has group quick wins, and planning one predicts exactly its score", async () => {
    const b = await breakdownOf(owner);
    expect(b.quickWins.length).toBeGreaterThan(0);
    const links = b.quickWins.find((w) => w.action === "remove_public_link");
    expect(links).toBeDefined();
    if (!links?.plan || !("findingIds" in links.plan)) throw new Error("no public-link quick win");
    expect(links.title).toMatch(/^Remove (the worst \d+ of )?[\d,]+ public links?$/);
    expect(links.findingIds.length).toBeGreaterThan(0);

    const res = await call(owner, "POST", "/api/remediations", links.plan);
    expect(res.status).toBe(201);
    const plan = res.body as TPlan;
    expect(plan.status).toBe("PLANNED");
    expect(plan.organizationId).toBe(owner.orgId);
    expect(plan.steps.length).toBeGreaterThanOrEqual(links.findingIds.length);
    for (const s of plan.steps) {
      expect(s).toMatchObject({
        action: "remove_public_link",
        connectorId,
        after: null,
        reversible: true,
        irreversibleReason: null,
        status: "PENDING",
        people: ["anyone with the link"],
      });
      expect(s.resource).toMatchObject({ kind: "permission" });
      expect(s.before).toMatchObject({ type: "anyone" });
      expect(s.findingIds.length).toBe(1);
    }
    // Every public-link finding asked for is fixed, and the prediction is the quick win's.
    expect([...plan.fixedFindingIds].sort()).toEqual([...links.findingIds].sort());
    expect(plan.predicted.before.score).toBe(b.score);
    expect(plan.predicted.scoreDelta).toBe(links.scoreDelta);
    expect(plan.predicted.score).toBe(b.score + links.scoreDelta);

    // The what-if of the same findings answers the same numbers and changes nothing.
    const sim = await call(owner, "POST", "/api/posture/simulate", { findingIds: links.findingIds });
    expect(sim.status).toBe(200);
    expect(sim.body).toMatchObject({
      score: plan.predicted.score,
      grade: plan.predicted.grade,
      scoreDelta: plan.predicted.scoreDelta,
      before: plan.predicted.before,
      resolvedFindings: links.findingIds.length,
    });
    expect((sim.body as { controls: unknown[] }).controls).toEqual(plan.controls);
    const still = await openFindings(owner.orgId, "public_link");
    expect(still.map((f) => f.id)).toEqual(expect.arrayContaining(links.findingIds));

    // The event and the audit row committed with the plan.
    const planned = await gw.db.db
      .select()
      .from(events)
      .where(and(eq(events.orgId, owner.orgId), eq(events.type, "remediation.planned")));
    expect(planned.some((e) => JSON.parse(String(e.data)).remediationId === plan.id)).toBe(true);
    const rows = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, owner.orgId), eq(auditLog.target, plan.id)));
    expect(rows.map((r) => r.action)).toEqual(["REMEDIATION_PLANNED"]);
  });

  it("a plan of every quick win changes compliance controls, as the simulation says", async () => {
    const b = await breakdownOf(owner);
    const all = b.quickWins.flatMap((w) => (w.plan && "findingIds" in w.plan ? w.plan.findingIds : []));
    const res = await call(owner, "POST", "/api/remediations", { findingIds: all });
    expect(res.status).toBe(201);
    const plan = res.body as TPlan;
    expect(plan.predicted.scoreDelta).toBeGreaterThan(0);
    expect(plan.controls.length).toBeGreaterThan(0);
    for (const c of plan.controls) expect(c.before).not.toBe(c.after);
    expect(new Set(plan.controls.map((c) => c.framework)).size).toBeGreaterThan(1);
    const sim = await call(owner, "POST", "/api/posture/simulate", { findingIds: all });
    expect(sim.body).toMatchObject({
      score: plan.predicted.score,
      scoreDelta: plan.predicted.scoreDelta,
      controls: plan.controls,
    });
    // The sum of the groups is at least each group's gain.
    for (const w of b.quickWins)
      if (w.plan) expect(plan.predicted.scoreDelta).toBeGreaterThanOrEqual(w.scoreDelta);
  });

  it("a quick win's group plans every open finding of it", async () => {
    const b = await breakdownOf(owner);
    const shares = b.quickWins.find((w) => w.title.includes("untrusted"));
    if (!shares) throw new Error("no untrusted-shares quick win");
    const byGroup = await call(owner, "POST", "/api/remediations", { quickWin: "untrusted_shares" });
    expect(byGroup.status).toBe(201);
    const plan = byGroup.body as TPlan & { origin: string };
    expect(plan.origin).toBe("quick_win");
    expect(plan.request).toEqual({ quickWin: "untrusted_shares" });
    expect([...plan.fixedFindingIds].sort()).toEqual([...shares.findingIds].sort());
    expect(plan.predicted.scoreDelta).toBe(shares.scoreDelta);
    expect(plan.steps).toHaveLength(shares.steps);
  });

  it("external shares become one step per outside permission; app findings revoke every grant", async () => {
    const [share] = await openFindings(owner.orgId, "external_share");
    const apps = await openFindings(owner.orgId, "app_broad_scopes_unverified");
    if (!share) throw new Error("the demo tenant has no external share");
    const res = await call(owner, "POST", "/api/remediations", {
      findingIds: [share.id, ...apps.slice(0, 1).map((a) => a.id)],
    });
    expect(res.status).toBe(201);
    const plan = res.body as TPlan;
    const perms = plan.steps.filter((s) => s.resource.kind === "permission");
    expect(perms.length).toBe(Number(share.details.targetCount));
    for (const s of perms) {
      expect(["remove_external_user", "remove_external_domain"]).toContain(s.action);
      expect(s.findingIds).toEqual([share.id]);
      expect(s.people).toHaveLength(1);
    }
    expect(plan.fixedFindingIds).toContain(share.id);
    if (apps[0]) {
      const grants = plan.steps.filter((s) => s.action === "revoke_oauth_grant");
      expect(grants.length).toBe(Number(apps[0].details.grantCount));
      for (const g of grants)
        expect(g).toMatchObject({ reversible: false, irreversibleReason: expect.stringMatching(/Google/) });
      expect(plan.fixedFindingIds).toContain(apps[0].id);
    }
    // Steps run permissions first, grants last.
    const kinds = plan.steps.map((s) => s.resource.kind);
    expect(kinds).toEqual([...kinds].sort((a, b) => (a === "grant" ? 1 : 0) - (b === "grant" ? 1 : 0)));
  });

  it("a sharing item removes that way out of its file, and only that", async () => {
    const [item] = await gw.db.db
      .select()
      .from(workspaceShares)
      .where(
        and(eq(workspaceShares.connectorId, connectorId), eq(workspaceShares.sharingType, "external_user")),
      )
      .limit(1);
    if (!item) throw new Error("no external_user sharing item");
    const perms = await gw.db.db
      .select()
      .from(workspacePermissions)
      .where(
        and(
          eq(workspacePermissions.connectorId, connectorId),
          eq(workspacePermissions.fileId, item.fileId),
          eq(workspacePermissions.sharingType, "external_user"),
        ),
      );
    const res = await call(owner, "POST", "/api/remediations", { shareIds: [item.id] });
    expect(res.status).toBe(201);
    const plan = res.body as TPlan;
    expect(plan.steps.map((s) => (s.resource as { permissionId: string }).permissionId).sort()).toEqual(
      perms.map((p) => p.externalId).sort(),
    );
    expect(plan.steps.every((s) => s.action === "remove_external_user")).toBe(true);
    expect((await call(owner, "POST", "/api/remediations", { shareIds: ["wsf_nope|public"] })).status).toBe(
      404,
    );
  });

  it("offboards a person: their files' outside access, their grants, ownership to a colleague", async () => {
    const shares = await gw.db.db
      .select()
      .from(workspaceShares)
      .where(eq(workspaceShares.connectorId, connectorId));
    const byOwner = new Map<string, number>();
    for (const s of shares) byOwner.set(s.ownerEmail, (byOwner.get(s.ownerEmail) ?? 0) + 1);
    const [leaver] = [...byOwner].sort((a, b) => b[1] - a[1])[0] ?? [];
    if (!leaver) throw new Error("nobody shares outside");
    const users = await gw.db.db
      .select()
      .from(workspaceUsers)
      .where(and(eq(workspaceUsers.connectorId, connectorId), eq(workspaceUsers.status, "active")));
    const colleague = users.find((u) => u.email.toLowerCase() !== leaver.toLowerCase());
    if (!colleague) throw new Error("no colleague");
    const grants = await gw.db.db
      .select()
      .from(oauthGrants)
      .where(and(eq(oauthGrants.connectorId, connectorId), eq(oauthGrants.userEmail, leaver)));

    const unknown = await call(owner, "POST", "/api/remediations", {
      playbook: { kind: "offboard_user", userEmail: leaver, transferTo: "nobody@outside.example" },
    });
    expect(unknown.status).toBe(400);
    expect(errorCode(unknown)).toBe("invalid_input");

    const res = await call(owner, "POST", "/api/remediations", {
      playbook: { kind: "offboard_user", userEmail: leaver, transferTo: colleague.email },
    });
    expect(res.status).toBe(201);
    const plan = res.body as TPlan;
    const files = new Set(shares.filter((s) => s.ownerEmail === leaver).map((s) => s.fileExternalId));
    const removals = plan.steps.filter((s) => s.resource.kind === "permission");
    expect(new Set(removals.map((s) => s.resource.fileId))).toEqual(files);
    const transfers = plan.steps.filter((s) => s.action === "transfer_ownership");
    const personal = shares.filter((s) => s.ownerEmail === leaver);
    expect(transfers.length).toBeGreaterThan(0);
    for (const t of transfers) {
      expect(files.has(String(t.resource.fileId))).toBe(true);
      expect(t).toMatchObject({ before: { owner: leaver }, after: { owner: colleague.email.toLowerCase() } });
    }
    expect(transfers.length).toBeLessThanOrEqual(new Set(personal.map((s) => s.fileExternalId)).size);
    expect(plan.steps.filter((s) => s.action === "revoke_oauth_grant")).toHaveLength(grants.length);
    // Order: removals, then transfers, then grants.
    const rank = (s: TStep) =>
      s.resource.kind === "permission" ? 0 : s.action === "transfer_ownership" ? 1 : 2;
    const ranks = plan.steps.map(rank);
    expect(ranks).toEqual([...ranks].sort());
    expect(plan.request).toMatchObject({ playbook: { userEmail: leaver } });
  });

  it("400 when nothing can be done, with the reason; 404 for another organization's findings", async () => {
    const empty = await call(owner, "POST", "/api/remediations", {});
    expect(empty.status).toBe(400);
    expect(errorCode(empty)).toBe("invalid_input");
    const mfa = [
      ...(await openFindings(owner.orgId, "user_without_mfa")),
      ...(await openFindings(owner.orgId, "dormant_account")),
    ].slice(0, 2);
    expect(mfa.length).toBeGreaterThan(0);
    const none = await call(owner, "POST", "/api/remediations", { findingIds: mfa.map((f) => f.id) });
    expect(none.status).toBe(400);
    expect(errorCode(none)).toBe("invalid_input");
    expect((none.body as { skipped: unknown[] }).skipped).toHaveLength(mfa.length);

    const [theirs] = await openFindings(other.orgId, "public_link");
    if (!theirs) throw new Error("no finding in the other organization");
    const foreign = await call(owner, "POST", "/api/remediations", { findingIds: [theirs.id] });
    expect(foreign.status).toBe(404);
    const foreignSim = await call(owner, "POST", "/api/posture/simulate", { findingIds: [theirs.id] });
    expect(foreignSim.status).toBe(404);
  });

  it("409 naming the connector when it is read-only", async () => {
    const [link] = await openFindings(owner.orgId, "public_link");
    await gw.db.db.update(connectors).set({ writeAccess: false }).where(eq(connectors.id, connectorId));
    try {
      const res = await call(owner, "POST", "/api/remediations", { findingIds: [link?.id] });
      expect(res.status).toBe(409);
      expect(errorCode(res)).toBe("conflict");
      const body = res.body as { message: string; readOnlyConnectors: string[] };
      expect(body.message).toContain("Demo Drive");
      expect(body.message).toContain("writeAccess");
      expect(body.readOnlyConnectors).toEqual([connectorId]);
    } finally {
      await gw.db.db.update(connectors).set({ writeAccess: true }).where(eq(connectors.id, connectorId));
    }
  });
});

describe("Microsoft sources", () => {
  it("say a removed anonymous link cannot come back, and skip ownership transfers", async () => {
    const ms = await gw.createActor({ plan: "business", role: "OWNER" });
    const id = await scannedDemo(ms, "Demo 365", "microsoft_365");
    const links = await openFindings(ms.orgId, "public_link");
    expect(links.length).toBeGreaterThan(0);
    const res = await call(ms, "POST", "/api/remediations", {
      findingIds: links.slice(0, 3).map((l) => l.id),
    });
    expect(res.status).toBe(201);
    for (const s of (res.body as TPlan).steps)
      expect(s).toMatchObject({
        connectorId: id,
        action: "remove_public_link",
        reversible: false,
        irreversibleReason: expect.stringMatching(/new link/),
      });

    const [share] = await gw.db.db
      .select()
      .from(workspaceShares)
      .where(eq(workspaceShares.connectorId, id))
      .limit(1);
    if (!share) throw new Error("no share");
    const off = await call(ms, "POST", "/api/remediations", {
      playbook: { kind: "offboard_user", userEmail: share.ownerEmail, transferTo: "anyone@else.example" },
    });
    expect(off.status).toBe(201);
    const plan = off.body as TPlan;
    expect(plan.steps.some((s) => s.action === "transfer_ownership")).toBe(false);
    expect(plan.skipped.some((k) => /cannot transfer/.test(k.reason))).toBe(true);
  });
});

describe("approve, four eyes, cancel, list", () => {
  async function plan(a: { key: string }): Promise<TPlan> {
    const [link] = await openFindings(owner.orgId, "public_link");
    const res = await call(a, "POST", "/api/remediations", { findingIds: [link?.id] });
    expect(res.status).toBe(201);
    return res.body as TPlan;
  }

  it("refuses a self-approval with four eyes on; a second admin approves; then no more moves", async () => {
    const settings = await call(owner, "PATCH", "/api/remediation-settings", { fourEyes: true });
    expect(settings.status).toBe(200);
    expect(settings.body).toEqual({ fourEyes: true, preventionChangeCap: 25, partnerMayApprove: false });
    expect((await call(owner, "GET", "/api/remediation-settings")).body).toMatchObject({ fourEyes: true });

    const p = await plan(owner);
    const self = await call(owner, "POST", `/api/remediations/${p.id}/approve`);
    expect(self.status).toBe(409);
    expect(errorCode(self)).toBe("self_approval");
    // The planner's session is the same person as their API key.
    const selfSession = await gw.request("POST", `/api/remediations/${p.id}/approve`, {
      cookie: owner.cookie,
      ip: freshIp(),
    });
    expect(errorCode(selfSession)).toBe("self_approval");

    const second = await gw.createUser(owner.orgId, "ADMIN");
    const secondKey = await gw.createApiKey(owner.orgId, second.id);
    const ok = await call(secondKey, "POST", `/api/remediations/${p.id}/approve`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: "APPROVED", approvedBy: { email: second.email } });
    const again = await call(secondKey, "POST", `/api/remediations/${p.id}/approve`);
    expect(errorCode(again)).toBe("invalid_transition");
    const cancel = await call(owner, "POST", `/api/remediations/${p.id}/cancel`);
    expect(errorCode(cancel)).toBe("invalid_transition");

    const member = await gw.createUser(owner.orgId, "member");
    const memberKey = await gw.createApiKey(owner.orgId, member.id);
    expect(
      (await call(memberKey, "POST", `/api/remediations/${(await plan(owner)).id}/approve`)).status,
    ).toBe(403);

    const actions = await gw.db.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(eq(auditLog.orgId, owner.orgId));
    expect(actions.map((a) => a.action)).toEqual(
      expect.arrayContaining(["REMEDIATION_SETTINGS_CHANGED", "REMEDIATION_APPROVED"]),
    );
    // Only an OWNER, signed in, turns four eyes off.
    const off = await gw.request("PATCH", "/api/remediation-settings", {
      cookie: owner.cookie,
      ip: freshIp(),
      body: { fourEyes: false },
    });
    expect(off.status).toBe(200);
  });

  it("approves by the planner with four eyes off; cancels a planned one; dry runs never approve", async () => {
    const p = await plan(owner);
    expect((await call(owner, "POST", `/api/remediations/${p.id}/approve`)).body).toMatchObject({
      status: "APPROVED",
    });
    const q = await plan(owner);
    const cancelled = await call(owner, "POST", `/api/remediations/${q.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "CANCELLED" });
    expect(errorCode(await call(owner, "POST", `/api/remediations/${q.id}/approve`))).toBe(
      "invalid_transition",
    );

    const dry = await plan(owner);
    const { remediations } = await import("@posture/db");
    await gw.db.db.update(remediations).set({ dryRun: true }).where(eq(remediations.id, dry.id));
    expect(errorCode(await call(owner, "POST", `/api/remediations/${dry.id}/approve`))).toBe(
      "invalid_transition",
    );
  });

  it("another organization's remediation is 404 everywhere", async () => {
    const p = await plan(owner);
    for (const [method, path] of [
      ["GET", `/api/remediations/${p.id}`],
      ["POST", `/api/remediations/${p.id}/approve`],
      ["POST", `/api/remediations/${p.id}/cancel`],
    ] as const) {
      const res = await call(other, method, path);
      expect(res.status).toBe(404);
    }
    const mine = await call(owner, "GET", `/api/remediations/${p.id}`);
    expect(mine.status).toBe(200);
    expect((mine.body as TPlan).steps.every((s) => s.status === "PENDING")).toBe(true);
  });

  it("lists newest first, offset-paged", async () => {
    const all = await call(owner, "GET", "/api/remediations?limit=500");
    const total = (all.body as { total: number }).total;
    expect(total).toBeGreaterThanOrEqual(4);
    const page = await call(owner, "GET", "/api/remediations?limit=2&offset=1");
    expect(page.status).toBe(200);
    const body = page.body as {
      remediations: Array<{ id: string; createdAt: string; stepCount: number }>;
      total: number;
      limit: number;
      offset: number;
      nextOffset: number | null;
    };
    expect(body).toMatchObject({ total, limit: 2, offset: 1, nextOffset: total > 3 ? 3 : null });
    expect(body.remediations.map((r) => r.id)).toEqual(
      (all.body as { remediations: Array<{ id: string }> }).remediations.slice(1, 3).map((r) => r.id),
    );
    const planned = await call(owner, "GET", "/api/remediations?status=CANCELLED");
    expect(
      (planned.body as { remediations: Array<{ status: string }> }).remediations.every(
        (r) => r.status === "CANCELLED",
      ),
    ).toBe(true);
    expect((await call(owner, "GET", "/api/remediations?limit=501")).status).toBe(400);
  });
});

describe("a partner plans for a client it manages", () => {
  it("plans with organizationId, approves only when the client lets it; 404 for others", async () => {
    const msp = await gw.createActor({ plan: "enterprise", isPartner: true });
    const client = await gw.createOrg({ plan: "business", name: "Client Co", managedByOrgId: msp.orgId });
    const clientOwner = await gw.createActor({ orgId: client.id, role: "OWNER" });
    await scannedDemo(clientOwner, "Client Drive");
    const [link] = await openFindings(client.id, "public_link");

    const res = await call(msp, "POST", "/api/remediations", {
      organizationId: client.id,
      findingIds: [link?.id],
    });
    expect(res.status).toBe(201);
    const plan = res.body as TPlan;
    expect(plan.organizationId).toBe(client.id);
    expect(plan.plannedBy).toMatchObject({ email: msp.user.email, organizationId: msp.orgId });
    // The client sees it; the partner reads it back; nobody else does.
    expect((await call(clientOwner, "GET", `/api/remediations/${plan.id}`)).status).toBe(200);
    expect((await call(msp, "GET", `/api/remediations/${plan.id}`)).status).toBe(200);
    const listed = await call(msp, "GET", `/api/remediations?organizationId=${client.id}`);
    expect((listed.body as { total: number }).total).toBe(1);

    // Not a client of this partner, or not a partner at all: 404.
    const stranger = await call(msp, "POST", "/api/remediations", {
      organizationId: other.orgId,
      findingIds: [link?.id],
    });
    expect(stranger.status).toBe(404);
    const notPartner = await call(owner, "POST", "/api/remediations", {
      organizationId: client.id,
      findingIds: [link?.id],
    });
    expect(notPartner.status).toBe(404);

    // The partner approves only once the client lets it.
    expect((await call(msp, "POST", `/api/remediations/${plan.id}/approve`)).status).toBe(403);
    await gw.db.db
      .update(organizations)
      .set({ partnerMayApprove: true })
      .where(eq(organizations.id, client.id));
    const approved = await call(msp, "POST", `/api/remediations/${plan.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: "APPROVED", approvedBy: { organizationId: msp.orgId } });
  });
});

describe("POST /api/posture/simulate", () => {
  it("trusting the outside domains re-rates external shares; agents' app findings resolve", async () => {
    const shares = await openFindings(owner.orgId, "external_share");
    const domains = [...new Set(shares.flatMap((f) => (f.details.externalDomains as string[]) ?? []))];
    const before = await breakdownOf(owner);
    const inventory = await gw.request("GET", "/api/agent-guard/inventory", {
      cookie: owner.cookie,
      ip: freshIp(),
    });
    const list = inventory.status === 200 ? (inventory.body as { agents: Array<{ id: string }> }).agents : [];
    const trust = await call(owner, "POST", "/api/posture/simulate", { trustedDomains: domains });
    expect(trust.status).toBe(200);
    const t = trust.body as {
      score: number;
      scoreDelta: number;
      before: { score: number };
      resolvedFindings: number;
    };
    expect(t.before.score).toBe(before.score);
    expect(t.resolvedFindings).toBe(0);
    // The demo tenant shares with untrusted domains: trusting them lowers those findings.
    expect(t.scoreDelta).toBeGreaterThan(0);
    if (list.length > 0) {
      const sim = await call(owner, "POST", "/api/posture/simulate", { agentIds: list.map((a) => a.id) });
      expect(sim.status).toBe(200);
      const appFindings = [
        ...(await openFindings(owner.orgId, "app_broad_scopes_unverified")),
        ...(await openFindings(owner.orgId, "app_broad_scopes")),
        ...(await openFindings(owner.orgId, "app_unverified_publisher")),
      ];
      expect((sim.body as { resolvedFindings: number }).resolvedFindings).toBe(appFindings.length);
    }
    // A member may simulate.
    const member = await gw.createUser(owner.orgId, "member");
    const key = await gw.createApiKey(owner.orgId, member.id);
    expect((await call(key, "POST", "/api/posture/simulate", {})).status).toBe(200);
  });
});
