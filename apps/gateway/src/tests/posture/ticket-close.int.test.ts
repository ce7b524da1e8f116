import { and, eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { auditLog, findings, scans, tickets } from "@posture/db";
import { closeComment, closeResolvedTickets } from "@posture/posture";
import { closeTicket } from "@posture/ticketing";
import { createLogger } from "@posture/platform";
import { startFakeJira, startFakeLinear, type TFakeJira, type TFakeLinear } from "@posture/fakes/trackers";
import { waitFor } from "@posture/webhooks/testing";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";
import { seedFinding } from "./seed-finding";

// Issue 32: a remediation the product applies resolves a ticketed finding, and the product
// comments on the ticket (naming the remediation and its REMEDIATION_APPLIED audit entry) and
// closes it, in the fake Jira (transition to Done) and the fake Linear (the team's completed
// state): over HTTP from the demo source to the tracker, once, however often the sweep runs.

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
const fakes: Array<{ close: () => Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});
const TEAM = { id: "0b6f3a57-3c1e-4d8a-9f0e-2a7b9c1d4e5f", key: "SEC" };
const sweepDeps = () => ({ runtime: gw.gateway.deps.runtime, log: createLogger("silent") });

type TQuickWin = { action: string; findingIds: string[] };

async function remediateTicketedFinding(tracker: "jira" | "linear") {
  const a = await gw.createActor({ plan: "business" });
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await gw.request(method, path, {
      cookie: a.cookie,
      ip: freshIp(),
      ...(body === undefined ? {} : { body }),
    });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    return res.body;
  };
  let jira: TFakeJira | undefined;
  let linear: TFakeLinear | undefined;
  if (tracker === "jira") {
    jira = await startFakeJira();
    fakes.push(jira);
    await call("PUT", "/api/integrations/ticketing", {
      provider: "jira",
      baseUrl: jira.url,
      project: jira.projectKey,
      token: jira.token,
    });
  } else {
    linear = await startFakeLinear({ teams: [TEAM] });
    fakes.push(linear);
    await call("PUT", "/api/integrations/ticketing", {
      provider: "linear",
      baseUrl: linear.url,
      project: TEAM.id,
      token: linear.apiKey,
    });
  }
  const connector = (await call(
    "POST",
    "/api/connectors",
    { type: "google_workspace", displayName: "Sandbox", mode: "demo", demo: { files: 300 } },
    201,
  )) as { id: string };
  await call("POST", `/api/connectors/${connector.id}/sync`);
  const breakdown = (await call("GET", "/api/posture/breakdown")) as { quickWins: TQuickWin[] };
  const win = breakdown.quickWins.find((w) => w.action === "remove_public_link");
  const findingId = win?.findingIds[0];
  if (!findingId) throw new Error(`no public link quick win: ${JSON.stringify(breakdown.quickWins)}`);
  const ticket = (await call("POST", `/api/findings/${findingId}/ticket`, undefined, 201)) as {
    ticket: { externalId: string };
  };
  const plan = (await call("POST", "/api/remediations", { findingIds: [findingId] }, 201)) as { id: string };
  await call("POST", `/api/remediations/${plan.id}/approve`);
  const applying = await gw.request("POST", `/api/remediations/${plan.id}/apply`, {
    cookie: a.cookie,
    ip: freshIp(),
  });
  expect(applying.status, JSON.stringify(applying.body)).toBe(202);
  await waitFor(async () => {
    const r = (await call("GET", `/api/remediations/${plan.id}`)) as { status: string };
    return r.status === "APPLIED" ? r : null;
  }, 60_000);
  expect(((await call("GET", `/api/findings/${findingId}`)) as { status: string }).status).toBe("RESOLVED");
  const [applied] = await gw.db.db
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.orgId, a.orgId),
        eq(auditLog.action, "REMEDIATION_APPLIED"),
        eq(auditLog.target, plan.id),
      ),
    );
  if (!applied) throw new Error("no REMEDIATION_APPLIED audit entry");
  return {
    a,
    findingId,
    externalId: ticket.ticket.externalId,
    remediationId: plan.id,
    auditId: applied.id,
    jira,
    linear,
  };
}

async function ticketRow(findingId: string) {
  const [t] = await gw.db.db.select().from(tickets).where(eq(tickets.findingId, findingId));
  return t;
}

async function closeAudits(orgId: string) {
  return gw.db.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, "TICKET_CLOSED_IN_TRACKER")));
}

describe("a remediation that resolves a ticketed finding closes the ticket", () => {
  it("Jira: one ADF comment naming the remediation and its audit entry, one transition to Done, however often the sweep runs", async () => {
    const r = await remediateTicketedFinding("jira");
    const issue = r.jira?.issues.get(r.externalId);
    expect(issue?.status.category).toBe("new");
    // Two sweeps at once, then a third: one close.
    const both = await Promise.all([
      closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId }),
      closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId }),
    ]);
    expect(both.reduce((n, o) => n + o.closed, 0)).toBe(1);
    expect(both.reduce((n, o) => n + o.failed, 0)).toBe(0);
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId })).toEqual({
      closed: 0,
      failed: 0,
      skipped: 0,
    });
    expect(issue?.status).toEqual({ id: "10001", name: "Done", category: "done" });
    expect(issue?.transitions).toEqual(["31"]);
    expect(issue?.comments).toHaveLength(1);
    const text = JSON.stringify(issue?.comments[0]);
    expect(text).toContain(`by remediation ${r.remediationId}`);
    expect(text).toContain(`audit entry ${r.auditId} records it applied`);
    const t = await ticketRow(r.findingId);
    expect(t?.status).toBe("closed:resolved");
    expect(t?.closeProof).toEqual({ remediationId: r.remediationId, auditId: r.auditId });
    expect(t?.closedAt).toBeInstanceOf(Date);
    const audits = await closeAudits(r.a.orgId);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      target: r.findingId,
      metadata: {
        provider: "jira",
        externalId: r.externalId,
        ticketId: t?.id,
        remediationId: r.remediationId,
        auditId: r.auditId,
        commented: true,
        transitioned: true,
      },
    });

    // A second resolution (the finding reopened, then resolved again) closes nothing again.
    await gw.db.db
      .update(findings)
      .set({ status: "OPEN", resolvedAt: null, resolvedBy: null })
      .where(eq(findings.id, r.findingId));
    await gw.db.db
      .update(findings)
      .set({ status: "RESOLVED", resolvedAt: new Date(), resolvedBy: r.remediationId })
      .where(eq(findings.id, r.findingId));
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId })).toEqual({
      closed: 0,
      failed: 0,
      skipped: 0,
    });
    expect(issue?.comments).toHaveLength(1);
    expect(issue?.transitions).toEqual(["31"]);
  }, 120_000);

  it("Linear: one comment, the completed state; a sweep that died after the tracker answered is not repeated there", async () => {
    const r = await remediateTicketedFinding("linear");
    const t = await ticketRow(r.findingId);
    const [f] = await gw.db.db.select().from(findings).where(eq(findings.id, r.findingId));
    if (!t || !f?.resolvedAt) throw new Error("no ticket");
    // A sweep claimed the ticket, commented and closed it in Linear, and died before recording:
    // the claim is stale, the row says nothing of the close.
    await gw.db.db
      .update(tickets)
      .set({ closeClaimedAt: new Date(Date.now() - 11 * 60_000) })
      .where(eq(tickets.id, t.id));
    const linear = r.linear;
    if (!linear) throw new Error("no fake");
    const comment = closeComment({
      ticketId: t.id,
      findingId: r.findingId,
      title: f.title,
      resolvedAt: f.resolvedAt,
      proof: { remediationId: r.remediationId, auditId: r.auditId },
      publicUrl: gw.gateway.deps.runtime.publicUrl,
    });
    const config = {
      provider: "linear" as const,
      baseUrl: linear.url,
      project: TEAM.id,
      token: linear.apiKey,
    };
    expect(await closeTicket(config, r.externalId, comment)).toEqual({ commented: true, transitioned: true });

    // The next sweep records the close and writes nothing to Linear again.
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId })).toEqual({
      closed: 1,
      failed: 0,
      skipped: 0,
    });
    const issue = linear.issues.get(r.externalId);
    const done = linear.statesOf(TEAM.id).find((s) => s.type === "completed");
    expect(done?.name).toBe("Done");
    expect(issue?.state).toEqual(done);
    expect(issue?.stateChanges).toEqual([done?.id]);
    expect(issue?.comments).toEqual([comment.text]);
    expect(comment.text).toContain(`by remediation ${r.remediationId}`);
    expect(comment.text).toContain(`audit entry ${r.auditId}`);
    expect(comment.text).toContain(`Posture reference: ${t.id}`);
    expect((await ticketRow(r.findingId))?.status).toBe("closed:resolved");
    const audits = await closeAudits(r.a.orgId);
    expect(audits.map((x) => x.metadata)).toEqual([
      expect.objectContaining({ commented: false, transitioned: false, remediationId: r.remediationId }),
    ]);
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId })).toEqual({
      closed: 0,
      failed: 0,
      skipped: 0,
    });
  }, 120_000);

  it("Linear: a sweep closes it from the start, once", async () => {
    const r = await remediateTicketedFinding("linear");
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId })).toEqual({
      closed: 1,
      failed: 0,
      skipped: 0,
    });
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId })).toEqual({
      closed: 0,
      failed: 0,
      skipped: 0,
    });
    const issue = r.linear?.issues.get(r.externalId);
    expect(issue?.state.type).toBe("completed");
    expect(issue?.stateChanges).toHaveLength(1);
    expect(issue?.comments).toHaveLength(1);
    expect(issue?.comments[0]).toContain(`by remediation ${r.remediationId}`);
  }, 120_000);

  it("a claim held by a live sweep is left alone; a failed tracker call releases it for the next sweep", async () => {
    const r = await remediateTicketedFinding("jira");
    await gw.db.db
      .update(tickets)
      .set({ closeClaimedAt: new Date() })
      .where(eq(tickets.findingId, r.findingId));
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId })).toEqual({
      closed: 0,
      failed: 0,
      skipped: 0,
    });
    await gw.db.db.update(tickets).set({ closeClaimedAt: null }).where(eq(tickets.findingId, r.findingId));
    r.jira?.failNext({ status: 503 });
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId })).toEqual({
      closed: 0,
      failed: 1,
      skipped: 0,
    });
    expect((await ticketRow(r.findingId))?.closeClaimedAt).toBeNull();
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: r.a.orgId })).toEqual({
      closed: 1,
      failed: 0,
      skipped: 0,
    });
    expect(r.jira?.issues.get(r.externalId)?.transitions).toEqual(["31"]);
  }, 120_000);

  it("a scan that stopped seeing the finding is named by its id", async () => {
    const a = await gw.createActor({ plan: "business" });
    const jira = await startFakeJira();
    fakes.push(jira);
    const put = await gw.request("PUT", "/api/integrations/ticketing", {
      cookie: a.cookie,
      body: { provider: "jira", baseUrl: jira.url, project: jira.projectKey, token: jira.token },
    });
    expect(put.status).toBe(200);
    const finding = await seedFinding(gw.db.db, a.orgId);
    const ticket = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: a.key });
    expect(ticket.status).toBe(201);
    // What scan-persist writes: the resolving scan's completed_at is the finding's resolved_at.
    const at = new Date("2026-12-02T08:00:00.000Z");
    const [scan] = await gw.db.db
      .insert(scans)
      .values({
        orgId: a.orgId,
        connectorId: finding.connectorId,
        connectorName: "D",
        trigger: "scheduled",
        status: "COMPLETE",
        startedAt: new Date(at.getTime() - 60_000),
        completedAt: at,
      })
      .returning({ id: scans.id });
    await gw.db.db
      .update(findings)
      .set({ status: "RESOLVED", resolvedAt: at })
      .where(eq(findings.id, finding.id));
    expect(await closeResolvedTickets(gw.db.db, sweepDeps(), { orgId: a.orgId })).toEqual({
      closed: 1,
      failed: 0,
      skipped: 0,
    });
    const issue = jira.issues.get("SEC-1");
    expect(JSON.stringify(issue?.comments)).toContain(
      `Resolved in Posture at 2026-12-02T08:00:00.000Z by scan ${scan?.id}, which no longer detects it.`,
    );
    expect(issue?.transitions).toEqual(["31"]);
    expect((await ticketRow(finding.id))?.closeProof).toEqual({ scanId: scan?.id });
  });
});
