import { afterEach, describe, expect, it } from "vitest";
import { createTicket } from "../create-ticket";
import { type TFakeLinear, sampleFinding, startFakeLinear } from "../../../fakes/src/trackers";
import type { TTicketingConfig } from "../types";

const TEAM = { id: "0b6f3a57-3c1e-4d8a-9f0e-2a7b9c1d4e5f", key: "SEC" };

let fake: TFakeLinear | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function linearConfig(tracker: TFakeLinear, overrides: Partial<TTicketingConfig> = {}): TTicketingConfig {
  return { provider: "linear", baseUrl: tracker.url, project: TEAM.id, token: tracker.apiKey, ...overrides };
}

type TGraphqlBody = { query: string; variables: Record<string, unknown> };

describe("createTicket on Linear", () => {
  it("runs issueCreate with the bare API key and maps identifier, url and state", async () => {
    fake = await startFakeLinear({ teams: [TEAM], workspace: "acme", initialState: "Triage" });
    const ticket = await createTicket(linearConfig(fake), sampleFinding({ severity: "MEDIUM" }));

    expect(ticket).toEqual({
      provider: "linear",
      externalId: "SEC-1",
      url: "https://linear.app/acme/issue/SEC-1/medium-public-link-on-payroll-xlsx",
      status: "Triage",
    });
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req?.method).toBe("POST");
    expect(req?.path).toBe("/graphql");
    expect(req?.headers.authorization).toBe(fake.apiKey);
    const body = req?.json as TGraphqlBody;
    expect(body.query).toMatch(/^mutation IssueCreate\(\$input: IssueCreateInput!\)/);
    expect(body.query).toContain("issueCreate(input: $input)");
    expect(body.variables.input).toMatchObject({
      teamId: TEAM.id,
      title: "[MEDIUM] Public link on 'Payroll.xlsx'",
      priority: 3,
    });
    expect((body.variables.input as { description: string }).description).toContain("`Payroll.xlsx`");
  });

  it("resolves a team key to its id before creating the issue", async () => {
    fake = await startFakeLinear({
      teams: [TEAM, { id: "9a9a9a9a-1111-4222-8333-444455556666", key: "OPS" }],
    });
    const ticket = await createTicket(linearConfig(fake, { project: "ops" }), sampleFinding());

    expect(ticket.externalId).toBe("OPS-1");
    expect(fake.requests).toHaveLength(2);
    const [lookup, create] = fake.requests.map((r) => r.json as TGraphqlBody);
    expect(lookup?.query).toContain("teams(filter: { key: { eq: $key } })");
    expect(lookup?.variables).toEqual({ key: "OPS" });
    expect(create?.variables.input).toMatchObject({ teamId: "9a9a9a9a-1111-4222-8333-444455556666" });
  });

  it("fails without creating anything when the team key is unknown", async () => {
    fake = await startFakeLinear({ teams: [TEAM] });
    const error = await createTicket(linearConfig(fake, { project: "NOPE" }), sampleFinding()).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: "upstream_unavailable",
      message: "Linear rejected the request: team NOPE not found",
      extra: { provider: "linear" },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("treats GraphQL errors in a 200 response as a refusal", async () => {
    fake = await startFakeLinear({ teams: [TEAM] });
    fake.failNext({ status: 200, body: { data: null, errors: [{ message: "Entity not found: Team" }] } });
    const error = await createTicket(linearConfig(fake), sampleFinding()).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "upstream_unavailable",
      message: "Linear rejected the request: Entity not found: Team",
      extra: { provider: "linear", upstreamStatus: 200 },
    });
  });

  it("treats success: false as a refusal", async () => {
    fake = await startFakeLinear({ teams: [TEAM] });
    fake.failNext({ status: 200, body: { data: { issueCreate: { success: false, issue: null } } } });
    const error = await createTicket(linearConfig(fake), sampleFinding()).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "upstream_unavailable",
      message: "Linear rejected the request: issueCreate did not succeed",
    });
  });

  it("is refused by Linear when the key is sent as a Bearer token", async () => {
    fake = await startFakeLinear({ teams: [TEAM] });
    const error = await createTicket(
      linearConfig(fake, { token: `Bearer ${fake.apiKey}` }),
      sampleFinding(),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "upstream_unavailable",
      message: "Linear rejected the request: HTTP 400 (Authentication required, not authenticated)",
    });
  });
});
