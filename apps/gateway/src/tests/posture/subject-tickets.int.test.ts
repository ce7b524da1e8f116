import { and, eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { auditLog, subjectTickets } from "@posture/db";
import { isValidAdf, startFakeGithub, startFakeJira } from "@posture/fakes/trackers";
import { useTestGateway } from "../../testing";
import { seedFinding } from "./seed-finding";

// Issue 32: one ticket for a quick-win group (POST /api/posture/quick-wins/{group}/ticket) or an
// incident (POST /api/incidents/{id}/ticket), over HTTP into the fake trackers; 4xx for an unknown
// group or incident, a tracker not configured, a plan without ticketing, and a second ticket.

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
const fakes: Array<{ close: () => Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

type TTicketBody = {
  ticket: {
    provider: string;
    externalId: string;
    url: string;
    status: string;
    kind: string;
    subject: string;
    findingIds: string[];
    createdAt: string;
  };
};

async function withGithub() {
  const a = await gw.createActor({ plan: "business" });
  const github = await startFakeGithub();
  fakes.push(github);
  const put = await gw.request("PUT", "/api/integrations/ticketing", {
    cookie: a.cookie,
    body: { provider: "github", baseUrl: github.url, project: github.repo, token: github.token },
  });
  expect(put.status).toBe(200);
  return { a, github };
}

describe("POST /api/posture/quick-wins/{group}/ticket", () => {
  it("files one GitHub issue listing the group's open findings, audited; a second is 409", async () => {
    const { a, github } = await withGithub();
    const finding = await seedFinding(gw.db.db, a.orgId);
    const res = await gw.request("POST", "/api/posture/quick-wins/public_links/ticket", { key: a.key });
    expect(res.status, res.text).toBe(201);
    const body = res.body as TTicketBody;
    expect(body.ticket).toMatchObject({
      provider: "github",
      externalId: `${github.repo}#1`,
      url: `https://github.com/${github.repo}/issues/1`,
      status: "open",
      kind: "quick_win",
      subject: "public_links",
      findingIds: [finding.id],
    });
    const created = github.requests.find((r) => r.method === "POST" && r.path.endsWith("/issues"));
    const sent = created?.json as { title: string; body: string };
    expect(sent.title).toBe("[CRITICAL] Remove 1 public link");
    expect(sent.body).toContain(`/api/findings/${finding.id}`);
    expect(sent.body).toContain('{"quickWin": "public_links"}');
    const [row] = await gw.db.db.select().from(subjectTickets).where(eq(subjectTickets.orgId, a.orgId));
    expect(row).toMatchObject({ kind: "quick_win", subject: "public_links", externalId: `${github.repo}#1` });
    const [entry] = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, a.orgId), eq(auditLog.action, "TICKET_CREATED")));
    expect(entry).toMatchObject({
      target: "public_links",
      metadata: { kind: "quick_win", provider: "github", externalId: `${github.repo}#1`, findingCount: 1 },
    });
    const again = await gw.request("POST", "/api/posture/quick-wins/public_links/ticket", { key: a.key });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "ticket_exists" });
    expect(github.issues.size).toBe(1);
  });

  it("400 for an unknown group, 404 for a group with no open finding, 400 without a tracker, 402 on a plan without ticketing", async () => {
    const { a } = await withGithub();
    const unknown = await gw.request("POST", "/api/posture/quick-wins/no_such_group/ticket", { key: a.key });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: "invalid_input" });
    const empty = await gw.request("POST", "/api/posture/quick-wins/unverified_apps/ticket", { key: a.key });
    expect(empty.status).toBe(404);
    expect(empty.body).toMatchObject({ error: "not_found" });

    const bare = await gw.createActor({ plan: "business" });
    await seedFinding(gw.db.db, bare.orgId);
    const unconfigured = await gw.request("POST", "/api/posture/quick-wins/public_links/ticket", {
      key: bare.key,
    });
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.body).toMatchObject({ error: "integration_not_configured" });
    // Nothing claimed: the group can be ticketed once a tracker is configured.
    expect(await gw.db.db.select().from(subjectTickets).where(eq(subjectTickets.orgId, bare.orgId))).toEqual(
      [],
    );

    const team = await gw.createActor({ plan: "team" });
    const refused = await gw.request("POST", "/api/posture/quick-wins/public_links/ticket", {
      key: team.key,
    });
    expect(refused.status).toBe(402);
  });
});

describe("POST /api/incidents/{id}/ticket", () => {
  it("files one Jira issue with the incident and its linked findings; a failed tracker records nothing", async () => {
    const a = await gw.createActor({ plan: "business" });
    const jira = await startFakeJira();
    fakes.push(jira);
    const put = await gw.request("PUT", "/api/integrations/ticketing", {
      cookie: a.cookie,
      body: { provider: "jira", baseUrl: jira.url, project: jira.projectKey, token: jira.token },
    });
    expect(put.status).toBe(200);
    const finding = await seedFinding(gw.db.db, a.orgId);
    const incident = await gw.request("POST", "/api/incidents", {
      key: a.key,
      body: {
        title: "Payroll exposed",
        priority: "P1",
        findingIds: [finding.id],
        summary: "Public payroll file.",
      },
    });
    expect(incident.status, incident.text).toBe(201);
    const id = (incident.body as { id: string }).id;

    jira.failNext({ status: 500 });
    const failed = await gw.request("POST", `/api/incidents/${id}/ticket`, { key: a.key });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: "upstream_unavailable" });
    expect(await gw.db.db.select().from(subjectTickets).where(eq(subjectTickets.orgId, a.orgId))).toEqual([]);

    const res = await gw.request("POST", `/api/incidents/${id}/ticket`, { key: a.key });
    expect(res.status, res.text).toBe(201);
    expect((res.body as TTicketBody).ticket).toMatchObject({
      provider: "jira",
      externalId: "SEC-1",
      url: `${jira.url}/browse/SEC-1`,
      status: "To Do",
      kind: "incident",
      subject: id,
      findingIds: [finding.id],
    });
    const created = jira.requests.filter((r) => r.method === "POST" && r.path === "/rest/api/3/issue").at(-1);
    const fields = (created?.json as { fields: { summary: string; labels: string[]; description: unknown } })
      .fields;
    expect(fields.summary).toBe("[P1] Incident: Payroll exposed");
    expect(fields.labels).toEqual(["security-posture", "severity-critical"]);
    expect(isValidAdf(fields.description)).toBe(true);
    expect(JSON.stringify(fields.description)).toContain(`/api/findings/${finding.id}`);
    expect(JSON.stringify(fields.description)).toContain("Public payroll file.");

    const again = await gw.request("POST", `/api/incidents/${id}/ticket`, { key: a.key });
    expect(again.status).toBe(409);
  });

  it("404 for an unknown or another organization's incident, 400 without a tracker, 402 on a plan without ticketing", async () => {
    const { a } = await withGithub();
    const unknown = await gw.request("POST", "/api/incidents/inc_unknown/ticket", { key: a.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: "not_found" });
    const bare = await gw.createActor({ plan: "business" });
    const theirs = await gw.request("POST", "/api/incidents", {
      key: bare.key,
      body: { title: "Theirs", priority: "P3" },
    });
    const theirId = (theirs.body as { id: string }).id;
    expect((await gw.request("POST", `/api/incidents/${theirId}/ticket`, { key: a.key })).status).toBe(404);
    const unconfigured = await gw.request("POST", `/api/incidents/${theirId}/ticket`, { key: bare.key });
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.body).toMatchObject({ error: "integration_not_configured" });
    const team = await gw.createActor({ plan: "team" });
    expect((await gw.request("POST", `/api/incidents/${theirId}/ticket`, { key: team.key })).status).toBe(
      402,
    );
  });
});
