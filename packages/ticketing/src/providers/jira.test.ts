import { afterEach, describe, expect, it } from "vitest";
import { createTicket } from "../create-ticket";
import { type TFakeJira, isValidAdf, sampleFinding, startFakeJira } from "../../../fakes/src/trackers";
import type { TTicketingConfig } from "../types";

let fake: TFakeJira | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function jiraConfig(tracker: TFakeJira, overrides: Partial<TTicketingConfig> = {}): TTicketingConfig {
  return {
    provider: "jira",
    baseUrl: tracker.url,
    project: tracker.projectKey,
    token: tracker.token,
    ...overrides,
  };
}

describe("createTicket on Jira Cloud", () => {
  it("creates an issue with Basic auth and an ADF description, and reads its status back", async () => {
    fake = await startFakeJira({ projectKey: "SEC", initialStatus: "Backlog" });
    const ticket = await createTicket(jiraConfig(fake), sampleFinding());

    expect(ticket).toEqual({
      provider: "jira",
      externalId: "SEC-1",
      url: `${fake.url}/browse/SEC-1`,
      status: "Backlog",
    });
    expect(fake.requests).toHaveLength(2);
    const [create, read] = fake.requests;
    expect(create?.method).toBe("POST");
    expect(create?.path).toBe("/rest/api/3/issue");
    const basic = Buffer.from(`${fake.email}:${fake.apiToken}`).toString("base64");
    expect(create?.headers.authorization).toBe(`Basic ${basic}`);
    expect(create?.json).toMatchObject({
      fields: {
        project: { key: "SEC" },
        issuetype: { name: "Task" },
        summary: "[HIGH] Public link on 'Payroll.xlsx'",
        labels: ["security-posture", "severity-high"],
      },
    });
    const description = (create?.json as { fields: { description: unknown } }).fields.description;
    expect(isValidAdf(description)).toBe(true);
    const text = JSON.stringify(description);
    for (const fact of ["HIGH", "Payroll.xlsx", "google_workspace", "2025-03-14T09:26:53.000Z"]) {
      expect(text).toContain(fact);
    }
    expect(text).toContain('"href":"https://posture.example.com/findings/fnd_01HZX3"');
    expect(read?.method).toBe("GET");
    expect(read?.path).toBe("/rest/api/3/issue/SEC-1");
    expect(read?.query.get("fields")).toBe("status");
  });

  it("numbers successive issues and strips a trailing slash from the site", async () => {
    fake = await startFakeJira();
    const config = jiraConfig(fake, { baseUrl: `${fake.url}/` });
    await createTicket(config, sampleFinding());
    const second = await createTicket(config, sampleFinding({ severity: "LOW" }));
    expect(second.externalId).toBe("SEC-2");
    expect(second.url).toBe(`${fake.url}/browse/SEC-2`);
    expect(second.status).toBe("To Do");
  });

  it("sends a token without a colon as a Bearer personal access token", async () => {
    fake = await startFakeJira({ personalAccessToken: "jira-pat-abcdef123456" });
    const ticket = await createTicket(jiraConfig(fake, { token: "jira-pat-abcdef123456" }), sampleFinding());
    expect(ticket.externalId).toBe("SEC-1");
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer jira-pat-abcdef123456");
  });

  it("uses the configured issue type", async () => {
    fake = await startFakeJira();
    await createTicket(jiraConfig(fake), sampleFinding(), { jiraIssueType: "Bug" });
    expect(fake.requests[0]?.json).toMatchObject({ fields: { issuetype: { name: "Bug" } } });
  });

  it("falls back to 'To Do' when the status cannot be read after the issue was created", async () => {
    fake = await startFakeJira({ initialStatus: "In Progress" });
    const failingReads: typeof fetch = (input, init) =>
      init?.method === "GET" ? Promise.reject(new TypeError("fetch failed")) : fetch(input, init);
    const ticket = await createTicket(jiraConfig(fake), sampleFinding(), { fetch: failingReads });
    expect(ticket).toMatchObject({ externalId: "SEC-1", status: "To Do" });
  });

  it("reports Jira's own validation message for an unknown project", async () => {
    fake = await startFakeJira({ projectKey: "SEC" });
    const error = await createTicket(jiraConfig(fake, { project: "OPS" }), sampleFinding()).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: "upstream_unavailable",
      message: "Jira rejected the request: HTTP 400 (valid project is required)",
      extra: { provider: "jira", upstreamStatus: 400 },
    });
    expect(fake.requests).toHaveLength(1);
  });
});
