import { and, eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { auditLog, events, findings, tickets } from "@posture/db";
import {
  githubIssueEvent,
  jiraIssueUpdated,
  linearIssueUpdate,
  startFakeGithub,
  startFakeJira,
  startFakeLinear,
  type TSignedDelivery,
} from "@posture/fakes/trackers";
import { closeResolvedTickets } from "@posture/posture";
import { audit, createLogger, SYSTEM_ACTOR } from "@posture/platform";
import { useTestGateway } from "../../testing";
import { seedFinding } from "./seed-finding";

// Trackers here listen on loopback, which the outbound guard refuses unless allowed.
const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
const fakes: Array<{ close: () => Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

type TConfigured = { hookId: string; webhookUrl: string; webhookSecret: string };

async function setUp(provider: "jira" | "github" | "linear") {
  const a = await gw.createActor({ plan: "enterprise" });
  const finding = await seedFinding(gw.db.db, a.orgId);
  let body: Record<string, string>;
  let github: Awaited<ReturnType<typeof startFakeGithub>> | undefined;
  if (provider === "github") {
    const fake = await startFakeGithub();
    github = fake;
    fakes.push(fake);
    body = { provider, baseUrl: fake.url, project: fake.repo, token: fake.token };
  } else if (provider === "jira") {
    const fake = await startFakeJira();
    fakes.push(fake);
    body = { provider, baseUrl: fake.url, project: fake.projectKey, token: `${fake.email}:${fake.apiToken}` };
  } else {
    const team = { id: "0b6f3a57-3c1e-4d8a-9f0e-2a7b9c1d4e5f", key: "SEC" };
    const fake = await startFakeLinear({ teams: [team], workspace: "acme" });
    fakes.push(fake);
    body = { provider, baseUrl: fake.url, project: team.id, token: fake.apiKey };
  }
  const put = await gw.request("PUT", "/api/integrations/ticketing", { cookie: a.cookie, body });
  expect(put.status).toBe(200);
  const hook = put.body as TConfigured;
  expect(hook.hookId).toMatch(/^thk_/);
  expect(hook.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
  expect(new URL(hook.webhookUrl).pathname).toBe(`/api/integrations/ticketing/events/${hook.hookId}`);
  const ticket = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: a.key });
  expect(ticket.status).toBe(201);
  const { externalId } = (ticket.body as { ticket: { externalId: string } }).ticket;
  return { a, finding, hook, externalId, github };
}

const send = (hookId: string, d: TSignedDelivery) =>
  gw.request("POST", `/api/integrations/ticketing/events/${hookId}`, { rawBody: d.body, headers: d.headers });

async function statusOf(findingId: string) {
  const [f] = await gw.db.db
    .select({ status: findings.status })
    .from(findings)
    .where(eq(findings.id, findingId));
  return f?.status;
}

describe("POST /api/integrations/ticketing/events/{hookId}", () => {
  it("Jira: a ticket closed as Won't Do makes the finding an accepted risk, audited, with an event", async () => {
    const { a, finding, hook, externalId } = await setUp("jira");
    expect(externalId).toBe("SEC-1");
    const res = await send(hook.hookId, jiraIssueUpdated(hook.webhookSecret, externalId, "declined"));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      received: true,
      applied: true,
      findingId: finding.id,
      trackerState: "declined",
      findingStatus: "ACCEPTED",
    });
    expect(await statusOf(finding.id)).toBe("ACCEPTED");
    const [row] = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, a.orgId), eq(auditLog.action, "TICKET_UPDATED_BY_TRACKER")));
    expect(row).toMatchObject({
      target: finding.id,
      userEmail: "tracker:jira",
      metadata: {
        provider: "jira",
        externalId: "SEC-1",
        trackerState: "declined",
        from: "OPEN",
        to: "ACCEPTED",
      },
    });
    const [event] = await gw.db.db
      .select()
      .from(events)
      .where(and(eq(events.orgId, a.orgId), eq(events.type, "finding.ticket.updated")));
    const data: unknown = typeof event?.data === "string" ? JSON.parse(event.data) : event?.data;
    expect(data).toMatchObject({
      findingId: finding.id,
      trackerState: "declined",
      findingStatus: "ACCEPTED",
    });

    // Reopened in Jira: the finding is open again.
    const reopened = await send(hook.hookId, jiraIssueUpdated(hook.webhookSecret, externalId, "reopened"));
    expect(reopened.body).toMatchObject({ applied: true, trackerState: "reopened", findingStatus: "OPEN" });
    expect(await statusOf(finding.id)).toBe("OPEN");
    // Another edit of the open issue: nothing to apply, nothing recorded.
    const edited = await send(hook.hookId, jiraIssueUpdated(hook.webhookSecret, externalId, "reopened"));
    expect(edited.body).toMatchObject({ applied: false });
    const audits = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, a.orgId), eq(auditLog.action, "TICKET_UPDATED_BY_TRACKER")));
    expect(audits).toHaveLength(2);
  });

  it("GitHub: closed as completed leaves the finding OPEN until a scan confirms, the ticket flagged", async () => {
    const { finding, hook, externalId } = await setUp("github");
    const [repo, num] = externalId.split("#");
    const res = await send(
      hook.hookId,
      githubIssueEvent(hook.webhookSecret, repo ?? "", Number(num), "done"),
    );
    expect(res.body).toMatchObject({ applied: true, trackerState: "done", findingStatus: "OPEN" });
    expect(await statusOf(finding.id)).toBe("OPEN");
    const [t] = await gw.db.db.select().from(tickets).where(eq(tickets.findingId, finding.id));
    expect(t?.status).toBe("closed:done");
    const declined = await send(
      hook.hookId,
      githubIssueEvent(hook.webhookSecret, repo ?? "", Number(num), "declined"),
    );
    expect(declined.body).toMatchObject({ findingStatus: "ACCEPTED" });
  });

  it("Linear: canceled → accepted risk; a stale webhookTimestamp is refused", async () => {
    const { finding, hook, externalId } = await setUp("linear");
    const stale = await send(
      hook.hookId,
      linearIssueUpdate(hook.webhookSecret, externalId, "declined", Date.now() - 5 * 60_000),
    );
    expect(stale.status).toBe(401);
    expect(await statusOf(finding.id)).toBe("OPEN");
    const res = await send(hook.hookId, linearIssueUpdate(hook.webhookSecret, externalId, "declined"));
    expect(res.body).toMatchObject({ applied: true, findingStatus: "ACCEPTED" });
    expect(await statusOf(finding.id)).toBe("ACCEPTED");
  });

  it("401 when unsigned, signed with another secret, or the body changed after signing; 404 for an unknown hook", async () => {
    const { finding, hook, externalId } = await setUp("jira");
    const signed = jiraIssueUpdated(hook.webhookSecret, externalId, "declined");
    const { "x-hub-signature": _sig, ...unsigned } = signed.headers;
    const cases: TSignedDelivery[] = [
      { body: signed.body, headers: unsigned },
      jiraIssueUpdated("another-secret", externalId, "declined"),
      { body: signed.body.replace("Won't Do", "Done!!!!"), headers: signed.headers },
      // Another vendor's header with the right HMAC: not Jira's scheme.
      {
        body: signed.body,
        headers: { ...unsigned, "x-hub-signature-256": signed.headers["x-hub-signature"] ?? "" },
      },
    ];
    for (const d of cases) {
      const res = await send(hook.hookId, d);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: "unauthenticated" });
    }
    expect(await statusOf(finding.id)).toBe("OPEN");
    const unknown = await send("thk_unknown", signed);
    expect(unknown.status).toBe(404);
  });

  it("a signed delivery about an issue that is not ours is accepted and changes nothing", async () => {
    const { hook } = await setUp("jira");
    const res = await send(hook.hookId, jiraIssueUpdated(hook.webhookSecret, "SEC-999", "declined"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      received: true,
      applied: false,
      findingId: null,
      trackerState: null,
      findingStatus: null,
    });
  });
});

describe("a resolved ticketed finding", () => {
  it("is commented on and closed in the tracker, once, audited; a failed call is retried", async () => {
    const { a, finding, externalId, github } = await setUp("github");
    if (!github) throw new Error("no fake");
    const deps = { runtime: gw.gateway.deps.runtime, log: createLogger("silent") };
    // A remediation's step resolved it (what record.ts writes: status, resolved_at, resolved_by).
    await gw.db.db
      .update(findings)
      .set({ status: "RESOLVED", resolvedAt: new Date("2026-12-01T10:00:00Z"), resolvedBy: "rem_fix1" })
      .where(eq(findings.id, finding.id));
    // …and the remediation ended: its audit entry is what the comment cites.
    await gw.db.db.transaction((tx) =>
      audit(
        tx,
        { orgId: a.orgId, actor: SYSTEM_ACTOR },
        { action: "REMEDIATION_APPLIED", target: "rem_fix1", metadata: { status: "APPLIED" } },
      ),
    );
    const [applied] = await gw.db.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(and(eq(auditLog.orgId, a.orgId), eq(auditLog.action, "REMEDIATION_APPLIED")));
    github.failNext({ status: 502, body: { message: "Server Error" } });
    expect(await closeResolvedTickets(gw.db.db, deps, { orgId: a.orgId })).toEqual({
      closed: 0,
      failed: 1,
      skipped: 0,
    });
    expect(await closeResolvedTickets(gw.db.db, deps, { orgId: a.orgId })).toEqual({
      closed: 1,
      failed: 0,
      skipped: 0,
    });
    const n = Number(externalId.split("#")[1]);
    const issue = github.issues.get(n);
    expect(issue?.state).toBe("closed");
    expect(issue?.stateReason).toBe("completed");
    expect(issue?.comments).toHaveLength(1);
    expect(issue?.comments[0]).toContain(
      "Resolved in Posture at 2026-12-01T10:00:00.000Z by remediation rem_fix1",
    );
    expect(issue?.comments[0]).toContain(`/api/findings/${finding.id}`);
    expect(issue?.comments[0]).toContain(`audit entry ${applied?.id} records it applied`);
    expect(issue?.closes).toBe(1);
    const [t] = await gw.db.db.select().from(tickets).where(eq(tickets.findingId, finding.id));
    expect(t?.status).toBe("closed:resolved");
    const [row] = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, a.orgId), eq(auditLog.action, "TICKET_CLOSED_IN_TRACKER")));
    expect(row).toMatchObject({
      target: finding.id,
      metadata: { provider: "github", externalId, resolvedBy: "rem_fix1" },
    });
    // Nothing left to close: the sweep is idempotent.
    expect(await closeResolvedTickets(gw.db.db, deps, { orgId: a.orgId })).toEqual({
      closed: 0,
      failed: 0,
      skipped: 0,
    });
    expect(github.issues.get(n)?.comments).toHaveLength(1);
  });
});
