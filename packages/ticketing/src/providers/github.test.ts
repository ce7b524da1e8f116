import { afterEach, describe, expect, it } from "vitest";
import { createTicket } from "../create-ticket";
import { type TFakeGithub, sampleFinding, startFakeGithub } from "../../../fakes/src/trackers";
import type { TTicketingConfig } from "../types";

let fake: TFakeGithub | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function githubConfig(tracker: TFakeGithub, overrides: Partial<TTicketingConfig> = {}): TTicketingConfig {
  return {
    provider: "github",
    baseUrl: tracker.url,
    project: tracker.repo,
    token: tracker.token,
    ...overrides,
  };
}

describe("createTicket on GitHub Issues", () => {
  it("creates an issue with the documented headers and maps number, html_url and state", async () => {
    fake = await startFakeGithub({ repo: "acme/security" });
    const ticket = await createTicket(githubConfig(fake), sampleFinding({ severity: "CRITICAL" }));

    expect(ticket).toEqual({
      provider: "github",
      externalId: "acme/security#1",
      url: "https://github.com/acme/security/issues/1",
      status: "open",
    });
    expect(fake.requests).toHaveLength(1);
    const [req] = fake.requests;
    expect(req?.method).toBe("POST");
    expect(req?.path).toBe("/repos/acme/security/issues");
    expect(req?.headers.authorization).toBe(`Bearer ${fake.token}`);
    expect(req?.headers.accept).toBe("application/vnd.github+json");
    expect(req?.headers["x-github-api-version"]).toBe("2022-11-28");
    expect(req?.headers["user-agent"]).toMatch(/\S/);
    const body = req?.json as { title: string; body: string };
    expect(body.title).toBe("[CRITICAL] Public link on 'Payroll.xlsx'");
    expect(body.body).toContain("`Payroll.xlsx`");
    expect(body.body).toContain("`google_workspace`");
    expect(body.body).toContain("<https://posture.example.com/findings/fnd_01HZX3>");
  });

  it("strips a trailing slash from baseUrl", async () => {
    fake = await startFakeGithub();
    const ticket = await createTicket(githubConfig(fake, { baseUrl: `${fake.url}/` }), sampleFinding());
    expect(ticket.externalId).toBe("acme/security#1");
    expect(fake.requests[0]?.path).toBe("/repos/acme/security/issues");
  });

  it("reports GitHub's message when the repository is not visible to the token", async () => {
    fake = await startFakeGithub({ repo: "acme/security" });
    const error = await createTicket(githubConfig(fake, { project: "acme/other" }), sampleFinding()).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: "upstream_unavailable",
      message: "GitHub rejected the request: HTTP 404 (Not Found)",
      extra: { provider: "github", upstreamStatus: 404 },
    });
  });

  it("retries once after a secondary rate limit (403 with Retry-After)", async () => {
    fake = await startFakeGithub();
    fake.failNext({
      status: 403,
      retryAfter: "0",
      body: { message: "You have exceeded a secondary rate limit" },
    });
    const ticket = await createTicket(githubConfig(fake), sampleFinding());
    expect(ticket.externalId).toBe("acme/security#1");
    expect(fake.requests).toHaveLength(2);
  });

  it("does not retry a plain 403", async () => {
    fake = await startFakeGithub();
    fake.failNext({ status: 403, body: { message: "Resource not accessible by personal access token" } });
    const error = await createTicket(githubConfig(fake), sampleFinding()).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "upstream_unavailable",
      message: "GitHub rejected the request: HTTP 403 (Resource not accessible by personal access token)",
    });
    expect(fake.requests).toHaveLength(1);
  });
});
