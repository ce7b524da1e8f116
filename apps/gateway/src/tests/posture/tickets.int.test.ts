import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { tickets } from "@posture/db";
import { startFakeGithub, startFakeJira, type TFakeGithub, type TFakeJira } from "@posture/fakes/trackers";
import { useTestGateway } from "../../testing";
import { seedFinding } from "./seed-finding";

// Trackers here listen on loopback, which the outbound guard refuses unless allowed.
const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
const fakes: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function configureGithub(cookie: string): Promise<TFakeGithub> {
  const fake = await startFakeGithub();
  fakes.push(fake);
  const res = await gw.request("PUT", "/api/integrations/ticketing", {
    cookie,
    body: { provider: "github", baseUrl: fake.url, project: fake.repo, token: fake.token },
  });
  expect(res.status).toBe(200);
  expect(JSON.stringify(res.body)).not.toContain(fake.token);
  return fake;
}

describe("POST /api/findings/{id}/ticket", () => {
  it("creates a GitHub issue once, then 409", async () => {
    const a = await gw.createActor({ plan: "business" });
    const finding = await seedFinding(gw.db.db, a.orgId);
    const fake = await configureGithub(a.cookie);

    const res = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: a.key });
    expect(res.status).toBe(201);
    const { ticket } = res.body as {
      ticket: { provider: string; externalId: string; url: string; status: string };
    };
    expect(ticket).toMatchObject({ provider: "github", status: "open" });
    expect(ticket.url).toMatch(/^http/);
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0])).toContain("Payroll.xlsx");

    const again = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: a.key });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "ticket_exists" });
    expect(fake.requests).toHaveLength(1);
  });

  it("answers 502 when the tracker fails and records nothing, so a retry can succeed", async () => {
    const a = await gw.createActor({ plan: "business" });
    const finding = await seedFinding(gw.db.db, a.orgId);
    const fake = await configureGithub(a.cookie);
    fake.failNext({ status: 500, body: { message: "boom" } });

    const failed = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: a.key });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: "upstream_unavailable" });
    expect(await gw.db.db.select().from(tickets).where(eq(tickets.findingId, finding.id))).toHaveLength(0);

    const retried = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: a.key });
    expect(retried.status).toBe(201);
  });

  it("works against Jira too", async () => {
    const a = await gw.createActor({ plan: "enterprise" });
    const finding = await seedFinding(gw.db.db, a.orgId);
    const fake: TFakeJira = await startFakeJira();
    fakes.push(fake);
    const put = await gw.request("PUT", "/api/integrations/ticketing", {
      cookie: a.cookie,
      body: {
        provider: "jira",
        baseUrl: fake.url,
        project: fake.projectKey,
        token: `${fake.email}:${fake.apiToken}`,
      },
    });
    expect(put.status).toBe(200);
    const res = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: a.key });
    expect(res.status).toBe(201);
    expect((res.body as { ticket: { provider: string; url: string } }).ticket.url).toContain("/browse/");
  });

  it("needs a configured integration, an existing finding of the caller, and the ticketing entitlement", async () => {
    const a = await gw.createActor({ plan: "business" });
    const other = await gw.createActor({ plan: "business" });
    const finding = await seedFinding(gw.db.db, a.orgId);

    const unconfigured = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: a.key });
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.body).toMatchObject({ error: "integration_not_configured" });

    await configureGithub(other.cookie);
    const foreign = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { key: other.key });
    expect(foreign.status).toBe(404);

    const team = await gw.createActor({ plan: "team" });
    const teamRes = await gw.request("POST", `/api/findings/${finding.id}/ticket`, { cookie: team.cookie });
    expect(teamRes.status).toBe(402);
    expect(teamRes.body).toMatchObject({
      error: "plan_upgrade_required",
      upgrade: { feature: "ticketing", requiredPlan: "business" },
    });
  });
});
