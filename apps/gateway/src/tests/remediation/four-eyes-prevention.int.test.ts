import { and, asc, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { demoOverlays, events, findings, organizations, remediations } from "@posture/db";
import { waitFor } from "@posture/webhooks/testing";
import { useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Issue 28, item 2, over HTTP on demo sources (the sandbox tenant's writes are its overlay rows):
// with four eyes on, an ADMIN can neither raise the prevention cap nor have a prevention rule they
// made act on the tenant alone. The rule's plans wait (not approved by "system") until a different
// administrator approves the rule; then the next scan's plan is applied. Widening the rule clears
// the approval. Every change of the rule is a `prevention.rule.changed` event.

const gw = useTestGateway();

type TRule = {
  id: string;
  action: string;
  approval: { acting: boolean; approved: boolean; setBy: string | null; approvedBy: string | null };
};

const req = (cookie: string, method: string, path: string, body?: unknown) =>
  gw.request(method, path, { cookie, ip: freshIp(), ...(body === undefined ? {} : { body }) });

async function demoSource(cookie: string, name: string) {
  const created = await req(cookie, "POST", "/api/connectors", {
    type: "google_workspace",
    displayName: name,
    mode: "demo",
    demo: { files: 300 },
  });
  expect(created.status, created.text).toBe(201);
  const id = (created.body as { id: string }).id;
  const sync = await req(cookie, "POST", `/api/connectors/${id}/sync`);
  expect(sync.status, sync.text).toBe(200);
  return id;
}

const overlayRows = async (connectorId: string) =>
  (
    await gw.db.db.select({ n: count() }).from(demoOverlays).where(eq(demoOverlays.connectorId, connectorId))
  )[0]?.n;

const preventionPlans = (orgId: string) =>
  gw.db.db
    .select()
    .from(remediations)
    .where(and(eq(remediations.orgId, orgId), eq(remediations.origin, "prevention")))
    .orderBy(asc(remediations.createdAt));

const eventsOf = async (orgId: string, type: string) =>
  (
    await gw.db.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.orgId, orgId), eq(events.type, type)))
      .orderBy(asc(events.createdAt), asc(events.id))
  ).map((e) => JSON.parse(e.data) as Record<string, unknown>);

describe("four eyes binds prevention rules that act (item 2)", () => {
  it("the measured bypass no longer writes to the tenant; a second admin's approval lets the rule act", async () => {
    const owner = await gw.createActor({ plan: "business", role: "OWNER" });
    const orgId = owner.orgId;
    await gw.db.db
      .update(organizations)
      .set({ remediationFourEyes: true })
      .where(eq(organizations.id, orgId));
    const admin = await gw.createActor({ orgId, role: "ADMIN" });
    const second = await gw.createActor({ orgId, role: "ADMIN" });

    // The measured sequence: raise the cap to 10,000, add an acting rule, scan.
    const cap = await req(admin.cookie, "PATCH", "/api/remediation-settings", {
      preventionChangeCap: 10_000,
    });
    expect(cap.status).toBe(403);
    expect(errorCode(cap)).toBe("owner_required");
    const created = await req(admin.cookie, "POST", "/api/prevention-rules", {
      name: "Remove new public links",
      match: { categories: ["public_exposure"] },
      action: "REVOKE_PUBLIC_LINK",
    });
    expect(created.status, created.text).toBe(201);
    const rule = created.body as TRule;
    expect(rule.approval).toEqual({
      acting: true,
      approved: false,
      setBy: admin.user.email,
      approvedBy: null,
      approvedAt: null,
    });

    const first = await demoSource(admin.cookie, "First");
    const [waiting] = await preventionPlans(orgId);
    expect(waiting).toMatchObject({ status: "PLANNED", approvedBy: null, preventionRuleId: rule.id });
    // Every new public link of the scan is in the waiting plan, and none of its steps ran.
    const links = await gw.db.db
      .select({ id: findings.id })
      .from(findings)
      .where(and(eq(findings.connectorId, first), eq(findings.ruleId, "public_link")));
    expect((waiting?.request.findingIds as string[]).sort()).toEqual(links.map((l) => l.id).sort());
    expect(waiting?.stepCounts).toEqual({ PENDING: waiting?.stepTotal });
    expect(await overlayRows(first)).toBe(0);
    expect((await eventsOf(orgId, "prevention.triggered")).map((e) => e.outcome)).toEqual([
      "awaiting_approval",
    ]);
    // Its maker cannot approve its plan either: nobody else stands behind the rule.
    const selfPlan = await req(admin.cookie, "POST", `/api/remediations/${waiting?.id}/approve`);
    expect(selfPlan.status).toBe(409);
    expect(errorCode(selfPlan)).toBe("self_approval");

    // …nor the rule.
    const selfRule = await req(admin.cookie, "POST", `/api/prevention-rules/${rule.id}/approve`);
    expect(selfRule.status).toBe(409);
    expect(errorCode(selfRule)).toBe("self_approval");
    const approved = await req(second.cookie, "POST", `/api/prevention-rules/${rule.id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect((approved.body as TRule).approval).toMatchObject({
      acting: true,
      approved: true,
      setBy: admin.user.email,
      approvedBy: second.user.email,
    });

    // A second person stands behind the rule: the next scan's plan is applied by the system.
    const next = await demoSource(admin.cookie, "Second");
    const plans = await preventionPlans(orgId);
    expect(plans).toHaveLength(2);
    const acting = plans[1];
    expect(acting?.approvedBy).toMatchObject({ kind: "system" });
    const done = await waitFor(async () => {
      const [r] = await gw.db.db
        .select()
        .from(remediations)
        .where(eq(remediations.id, acting?.id ?? ""));
      return r?.status === "APPLIED" ? r : null;
    }, 60_000);
    expect(await overlayRows(next)).toBe(done.stepTotal);
    expect(await overlayRows(first)).toBe(0);
    expect((await eventsOf(orgId, "prevention.triggered")).map((e) => e.outcome)).toEqual([
      "awaiting_approval",
      "applying",
    ]);

    // Widening the rule (more categories) clears its approval; narrowing it would not.
    const widened = await req(admin.cookie, "PATCH", `/api/prevention-rules/${rule.id}`, {
      match: { categories: ["public_exposure", "external_sharing"] },
    });
    expect(widened.status, widened.text).toBe(200);
    expect((widened.body as TRule).approval).toMatchObject({ approved: false, approvedBy: null });

    expect(
      (await eventsOf(orgId, "prevention.rule.changed")).map((e) => ({
        change: e.change,
        acting: e.acting,
        widened: e.widened,
        approval: e.approval,
        by: (e.changedBy as { email: string }).email,
      })),
    ).toEqual([
      { change: "created", acting: true, widened: true, approval: "pending", by: admin.user.email },
      { change: "approved", acting: true, widened: false, approval: "approved", by: second.user.email },
      { change: "updated", acting: true, widened: true, approval: "pending", by: admin.user.email },
    ]);
  }, 180_000);

  it("a rule made while four eyes was off waits once it is on again", async () => {
    const owner = await gw.createActor({ plan: "business", role: "OWNER" });
    const admin = await gw.createActor({ orgId: owner.orgId, role: "ADMIN" });
    const created = await req(admin.cookie, "POST", "/api/prevention-rules", {
      name: "Remove new public links",
      match: { ruleIds: ["public_link"] },
      action: "REVOKE_PUBLIC_LINK",
    });
    expect(created.status, created.text).toBe(201);
    // Four eyes off: nothing to approve yet.
    expect((await eventsOf(owner.orgId, "prevention.rule.changed")).map((e) => e.approval)).toEqual([
      "not_needed",
    ]);
    const on = await req(admin.cookie, "PATCH", "/api/remediation-settings", { fourEyes: true });
    expect(on.status).toBe(200);
    const source = await demoSource(admin.cookie, "Later");
    const [plan] = await preventionPlans(owner.orgId);
    expect(plan).toMatchObject({ status: "PLANNED", approvedBy: null });
    expect(await overlayRows(source)).toBe(0);
    expect((await eventsOf(owner.orgId, "prevention.triggered")).map((e) => e.outcome)).toEqual([
      "awaiting_approval",
    ]);
  }, 120_000);
});
