import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectors } from "@posture/db";
import { startReceiver, waitFor, type TReceiver } from "@posture/webhooks/testing";
import { type TTestGateway, useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Issue 30, item 1: internal-exposure findings count everywhere exposure counts, not only in the
// score: inventory metrics, the timeline, policies, compliance signals (the access-control and
// least-privilege controls of the five frameworks) and the partner portfolio. And the broad-group
// threshold has its API (GET/PATCH /api/exposure/settings), taking effect at the next scan.
// A managed client scans the two demo sources: deterministic data, exact figures.

type TActor = Awaited<ReturnType<TTestGateway["createActor"]>>;
type TFinding = { id: string; ruleId: string; severity: string; category: string };
type TControl = { id: string; status: string; reason: string; findingIds: string[] };

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
let msp: TActor;
let owner: TActor;
let receiver: TReceiver;
const connectorIds: string[] = [];
let internal: TFinding[] = [];

const call = async <T>(who: TActor, method: string, path: string, body?: unknown, status = 200) => {
  const res = await gw.request(method, path, { cookie: who.cookie, ip: freshIp(), body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body as T;
};
const openInternal = async () =>
  (await call<{ findings: TFinding[] }>(owner, "GET", "/api/findings?category=internal_exposure&limit=500"))
    .findings;
const bySeverityAndRule = (fs: TFinding[]) => {
  const out: Record<string, number> = {};
  for (const f of fs) out[`${f.ruleId}:${f.severity}`] = (out[`${f.ruleId}:${f.severity}`] ?? 0) + 1;
  return out;
};

beforeAll(async () => {
  receiver = await startReceiver();
  msp = await gw.createActor({ plan: "enterprise", isPartner: true });
  const client = await gw.createOrg({ plan: "business", name: "Acme", managedByOrgId: msp.orgId });
  owner = await gw.createActor({ orgId: client.id, role: "OWNER" });
  await call(owner, "POST", "/api/webhooks", { url: receiver.url, events: ["policy.violation"] }, 201);
  for (const type of ["google_workspace", "microsoft_365"]) {
    const c = await call<{ id: string }>(
      owner,
      "POST",
      "/api/connectors",
      { type, displayName: type, mode: "demo", demo: { files: 400 } },
      201,
    );
    connectorIds.push(c.id);
    // The synthetic tenant is drawn from the connector's id unless seeded (as the demo seed does):
    // a fixed seed gives the same workspace, and so the same figures, on every run.
    await gw.db.db
      .update(connectors)
      .set({
        config: sql`${connectors.config} || ${JSON.stringify({ seed: `internal-exposure-${type}` })}::jsonb`,
      })
      .where(eq(connectors.id, c.id));
    await call(owner, "POST", `/api/connectors/${c.id}/sync`);
  }
  internal = await openInternal();
}, 300_000);
afterAll(async () => {
  await receiver.close();
});

describe("internal exposure, counted everywhere", () => {
  it("the demo sources yield the same internal-exposure findings every time", () => {
    // 400 files in each source: organization-wide links on sensitive files, everyone grants on
    // the Microsoft tenant, grants to All Staff / Company Announcements (packages/connectors/src/demo/groups.ts).
    expect(bySeverityAndRule(internal)).toEqual({
      "broad_group_grant:CRITICAL": 1,
      "broad_group_grant:HIGH": 4,
      "broad_group_grant:MEDIUM": 6,
      "broad_group_grant:LOW": 6,
      "org_wide_grant:CRITICAL": 4,
      "org_wide_grant:HIGH": 2,
      "org_wide_grant:MEDIUM": 3,
      "org_wide_link:CRITICAL": 3,
      "org_wide_link:HIGH": 12,
      "org_wide_link:MEDIUM": 19,
      "org_wide_link:LOW": 43,
    });
    expect(internal).toHaveLength(103);
  });

  it("inventory file metrics count the files everyone inside can open and the findings", async () => {
    const page = await call<{ metrics: Record<string, number> }>(owner, "GET", "/api/inventory?type=files");
    const orgWide = await call<{ total: number }>(owner, "GET", "/api/inventory?type=files&orgWide=true");
    expect(page.metrics).toMatchObject({
      total: 800,
      orgWide: orgWide.total,
      internalExposureFindings: internal.length,
    });
    expect({
      orgWide: page.metrics.orgWide,
      orgWideSensitive: page.metrics.orgWideSensitive,
      orgWidePct: page.metrics.orgWidePct,
      internalExposureFindings: page.metrics.internalExposureFindings,
    }).toEqual({ orgWide: 85, orgWideSensitive: 21, orgWidePct: 10.6, internalExposureFindings: 103 });
  });

  it("the timeline carries each finding's category and filters by it", async () => {
    const feed = await call<{
      items: Array<{ id: string; kind: string; category: string | null; ruleId: string | null }>;
      nextCursor: string | null;
    }>(owner, "GET", "/api/timeline?category=internal_exposure&limit=100");
    expect(feed.items.length).toBe(Math.min(100, internal.length));
    expect(new Set(feed.items.map((i) => `${i.kind}:${i.category}`))).toEqual(
      new Set(["finding:internal_exposure"]),
    );
    const ids = new Set(internal.map((f) => f.id));
    expect(feed.items.every((i) => ids.has(i.id))).toBe(true);
    const first = internal.find((f) => f.id === feed.items[0]?.id);
    expect(feed.items[0]?.ruleId).toBe(first?.ruleId);
    // The unfiltered feed: other kinds carry null.
    const all = await call<{ items: Array<{ kind: string; category: string | null }> }>(
      owner,
      "GET",
      "/api/timeline?limit=100",
    );
    expect(all.items.filter((i) => i.kind !== "finding").every((i) => i.category === null)).toBe(true);
    const bad = await gw.request("GET", "/api/timeline?category=oversharing", {
      cookie: owner.cookie,
      ip: freshIp(),
    });
    expect(bad.status).toBe(400);
  });

  it("a default policy matches internal exposure, and its violation is announced", async () => {
    const { rules } = await call<{ rules: Array<{ id: string; name: string; match: unknown }> }>(
      owner,
      "GET",
      "/api/policies",
    );
    const policy = rules.find((r) => r.name === "No organization-wide access to sensitive files");
    expect(policy?.match).toEqual({ categories: ["internal_exposure"], minSeverity: "HIGH" });
    const severe = internal.filter((f) => f.severity === "CRITICAL" || f.severity === "HIGH");
    const violations = () =>
      receiver.received
        .map((r) => JSON.parse(r.body) as { event: string; data: { ruleId: string; count: number } })
        .filter((d) => d.event === "policy.violation" && d.data.ruleId === policy?.id);
    await waitFor(async () => violations().length === 2, 20_000);
    // One violation per scan (source), together the severe internal findings.
    expect(severe).toHaveLength(26);
    expect(violations().reduce((n, v) => n + v.data.count, 0)).toBe(26);
  });

  it("compliance: the access-control and least-privilege controls read internal exposure", async () => {
    const mapped: Record<string, string[]> = {
      soc2: ["CC6.1", "CC6.3"],
      iso27001: ["A.5.15", "A.5.18"],
      gdpr: ["Art. 25", "Art. 32"],
      hipaa: ["164.308(a)(4)(i)", "164.312(a)(1)"],
      nist_csf: ["PR.AA-05"],
    };
    const ids = new Set(internal.map((f) => f.id));
    const page = await call<{ metrics: Record<string, number> }>(owner, "GET", "/api/inventory?type=files");
    expect(page.metrics).toMatchObject({ orgWide: 85, orgWideSensitive: 21 });
    // 8 CRITICAL = 1 + 4 + 3, 18 HIGH = 4 + 2 + 12, 28 MEDIUM = 6 + 3 + 19, 49 LOW = 6 + 43.
    const reason =
      "Internal oversharing: 85 of 800 files open to everyone in the organization (21 highly sensitive); open findings: 8 CRITICAL, 18 HIGH, 28 MEDIUM, 49 LOW";
    const seen: Record<string, Array<{ id: string; status: string; internalFindings: number }>> = {};
    for (const [framework, controls] of Object.entries(mapped)) {
      const run = await call<{ report: { controls: TControl[] } }>(
        owner,
        "POST",
        "/api/compliance/reports",
        { framework },
        200,
      );
      // A control the kind is not mapped to does not read it.
      const unmapped = run.report.controls.filter((c) => !controls.includes(c.id));
      expect(unmapped.filter((c) => c.reason.includes("Internal oversharing"))).toEqual([]);
      seen[framework] = controls.map((id) => {
        const c = run.report.controls.find((x) => x.id === id);
        expect(c?.reason, `${framework} ${id}`).toContain(reason);
        return {
          id,
          status: c?.status ?? "",
          internalFindings: (c?.findingIds ?? []).filter((f) => ids.has(f)).length,
        };
      });
    }
    // Severe open findings fail the evidence, so each mapped control is a GAP naming the worst
    // five findings of each of the three rules.
    const gap = (id: string) => ({ id, status: "GAP", internalFindings: 15 });
    expect(seen).toEqual({
      soc2: [gap("CC6.1"), gap("CC6.3")],
      iso27001: [gap("A.5.15"), gap("A.5.18")],
      gdpr: [gap("Art. 25"), gap("Art. 32")],
      hipaa: [gap("164.308(a)(4)(i)"), gap("164.312(a)(1)")],
      nist_csf: [gap("PR.AA-05")],
    });
  });

  it("the partner portfolio counts the client's open internal exposure", async () => {
    const res = await gw.request("GET", "/api/partner/reports/portfolio", { key: msp.key, ip: freshIp() });
    expect(res.status).toBe(200);
    const body = res.body as {
      totals: Record<string, number>;
      clients: Array<{ orgId: string; internalExposure: { open: number; critical: number } }>;
    };
    const critical = internal.filter((f) => f.severity === "CRITICAL").length;
    expect(body.clients.find((c) => c.orgId === owner.orgId)?.internalExposure).toEqual({
      open: internal.length,
      critical,
    });
    expect(body.totals).toMatchObject({
      internalExposureOpen: internal.length,
      internalExposureCritical: critical,
    });
    expect({ open: internal.length, critical }).toEqual({ open: 103, critical: 8 });
  });
});

describe("GET/PATCH /api/exposure/settings", () => {
  it("reads, changes with an audit row, refuses bad input and non-admins, and applies at the next scan", async () => {
    expect(await call(owner, "GET", "/api/exposure/settings")).toEqual({ broadGroupThreshold: 1000 });
    const member = await gw.createActor({ orgId: owner.orgId, role: "member" });
    const admin = await gw.createActor({ orgId: owner.orgId, role: "ADMIN" });
    // Any member reads it; only ADMIN+ changes it.
    expect(await call(member, "GET", "/api/exposure/settings")).toEqual({ broadGroupThreshold: 1000 });
    const refused = await gw.request("PATCH", "/api/exposure/settings", {
      cookie: member.cookie,
      ip: freshIp(),
      body: { broadGroupThreshold: 50 },
    });
    expect(refused.status).toBe(403);

    for (const bad of [
      { broadGroupThreshold: "50" },
      { broadGroupThreshold: 1 },
      { broadGroupThreshold: 1_000_001 },
      { broadGroupThreshold: 12.5 },
      { broadGroupThreshold: null },
      { broadGroupThreshold: 50, extra: true },
    ]) {
      const res = await gw.request("PATCH", "/api/exposure/settings", {
        cookie: admin.cookie,
        ip: freshIp(),
        body: bad,
      });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
    expect(await call(owner, "GET", "/api/exposure/settings")).toEqual({ broadGroupThreshold: 1000 });

    // Without a change, a rescan is incremental.
    const again = await call<{ kind: string; fullReason: string | null }>(
      owner,
      "POST",
      `/api/connectors/${connectorIds[0] ?? ""}/sync`,
    );
    expect(again).toMatchObject({ kind: "incremental", fullReason: null });
    const broadBefore = internal.filter((f) => f.ruleId === "broad_group_grant").length;
    expect(await call(admin, "PATCH", "/api/exposure/settings", { broadGroupThreshold: 2 })).toEqual({
      broadGroupThreshold: 2,
    });
    // The same value again changes nothing and writes no second row.
    await call(admin, "PATCH", "/api/exposure/settings", { broadGroupThreshold: 2 });
    const audit = await call<{ entries: Array<{ action: string; target: string; userEmail: string }> }>(
      owner,
      "GET",
      "/api/audit?action=EXPOSURE_SETTINGS_CHANGED",
    );
    expect(audit.entries.map((e) => [e.action, e.target, e.userEmail])).toEqual([
      ["EXPOSURE_SETTINGS_CHANGED", owner.orgId, admin.user.email],
    ]);

    // The next scan of each source reads the new threshold: its rules changed, so it judges every
    // file anew (a full scan), and the one after is incremental again. The demo grants go to All
    // Staff and Company Announcements, over half of each tenant: broad at any threshold.
    for (const id of connectorIds) {
      const next = await call<{ kind: string; fullReason: string | null }>(
        owner,
        "POST",
        `/api/connectors/${id}/sync`,
      );
      expect(next).toMatchObject({ kind: "full", fullReason: "rules_changed" });
      const after = await call<{ kind: string }>(owner, "POST", `/api/connectors/${id}/sync`);
      expect(after).toMatchObject({ kind: "incremental" });
    }
    const broadAfter = (await openInternal()).filter((f) => f.ruleId === "broad_group_grant").length;
    expect({ broadBefore, broadAfter }).toEqual({ broadBefore: 17, broadAfter: 17 });
  }, 300_000);
});
