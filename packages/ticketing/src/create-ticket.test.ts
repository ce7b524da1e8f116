import { toWireError } from "@posture/platform";
import { afterEach, describe, expect, it } from "vitest";
import { createTicket } from "./create-ticket";
import { sampleFinding, startFakeGithub, startFakeJira, startFakeLinear } from "../../fakes/src/trackers";
import type { TFakeTracker } from "../../fakes/src/trackers";
import type { TTicketingConfig } from "./types";

type TSetup = { fake: TFakeTracker; config: TTicketingConfig; secret: string; requestsPerTicket: number };

const LINEAR_TEAM = { id: "0b6f3a57-3c1e-4d8a-9f0e-2a7b9c1d4e5f", key: "SEC" };

const PROVIDERS: Array<{ name: string; label: string; start: () => Promise<TSetup> }> = [
  {
    name: "jira",
    label: "Jira",
    start: async () => {
      const fake = await startFakeJira();
      const config: TTicketingConfig = {
        provider: "jira",
        baseUrl: fake.url,
        project: "SEC",
        token: fake.token,
      };
      // Create, then the status read-back.
      return { fake, config, secret: fake.apiToken, requestsPerTicket: 2 };
    },
  },
  {
    name: "github",
    label: "GitHub",
    start: async () => {
      const fake = await startFakeGithub();
      const config: TTicketingConfig = {
        provider: "github",
        baseUrl: fake.url,
        project: fake.repo,
        token: fake.token,
      };
      return { fake, config, secret: fake.token, requestsPerTicket: 1 };
    },
  },
  {
    name: "linear",
    label: "Linear",
    start: async () => {
      const fake = await startFakeLinear({ teams: [LINEAR_TEAM] });
      const config: TTicketingConfig = {
        provider: "linear",
        baseUrl: fake.url,
        project: LINEAR_TEAM.id,
        token: fake.apiKey,
      };
      return { fake, config, secret: fake.apiKey, requestsPerTicket: 1 };
    },
  },
];

let current: TFakeTracker | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function setUp(start: () => Promise<TSetup>): Promise<TSetup> {
  const setup = await start();
  current = setup.fake;
  return setup;
}

function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected createTicket to fail");
    },
    (e: unknown) => e,
  );
}

describe.each(PROVIDERS)("$name tracker failures", ({ name, label, start }) => {
  it("maps a 401 to upstream_unavailable (502) without the token", async () => {
    const { fake, config, secret } = await setUp(start);
    fake.failNext({ status: 401 });
    const error = await failure(createTicket(config, sampleFinding()));

    expect(error).toMatchObject({
      code: "upstream_unavailable",
      extra: { provider: name, upstreamStatus: 401 },
    });
    const wire = toWireError(error);
    expect(wire.status).toBe(502);
    expect(wire.body.error).toBe("upstream_unavailable");
    expect(wire.body.message).toMatch(new RegExp(`^${label} rejected the request: HTTP 401`));
    expect(JSON.stringify(wire.body)).not.toContain(secret);
    expect(JSON.stringify(wire.body)).not.toContain(config.token);
    expect(fake.requests).toHaveLength(1);
  });

  it("redacts the token, in the form it was sent, when the tracker echoes it back", async () => {
    const { fake, config, secret } = await setUp(start);
    const sent = name === "jira" ? Buffer.from(config.token).toString("base64") : config.token;
    const echo = `invalid credential ${sent} (${secret})`;
    const bodies: Record<string, unknown> = {
      jira: { errorMessages: [], errors: { auth: echo } },
      github: { message: echo },
      linear: { errors: [{ message: echo }] },
    };
    fake.failNext({ status: 400, body: bodies[name] });
    const error = await failure(createTicket(config, sampleFinding()));

    const body = JSON.stringify(toWireError(error).body);
    expect(body).toContain("invalid credential [redacted] ([redacted])");
    expect(body).not.toContain(secret);
    expect(body).not.toContain(sent);
  });

  it("does not retry a 500: the issue may exist already", async () => {
    const { fake, config } = await setUp(start);
    fake.failNext({ status: 500 });
    const error = await failure(createTicket(config, sampleFinding()));

    expect(error).toMatchObject({
      code: "upstream_unavailable",
      message: `${label} failed: HTTP 500 (Injected HTTP 500)`,
      extra: { provider: name, upstreamStatus: 500 },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("does not retry a 503 that gives no Retry-After", async () => {
    const { fake, config } = await setUp(start);
    fake.failNext({ status: 503 });
    await expect(createTicket(config, sampleFinding())).rejects.toMatchObject({
      code: "upstream_unavailable",
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("retries once after a 429 with Retry-After and succeeds", async () => {
    const { fake, config, requestsPerTicket } = await setUp(start);
    fake.failNext({ status: 429, retryAfter: "1" });
    const ticket = await createTicket(config, sampleFinding());

    expect(ticket.provider).toBe(name);
    expect(ticket.externalId).toMatch(/1$/);
    expect(fake.requests).toHaveLength(1 + requestsPerTicket);
    expect(fake.requests[0]?.body).toBe(fake.requests[1]?.body);
  });

  it("retries once after a 503 with Retry-After", async () => {
    const { fake, config, requestsPerTicket } = await setUp(start);
    fake.failNext({ status: 503, retryAfter: "0" });
    await createTicket(config, sampleFinding());
    expect(fake.requests).toHaveLength(1 + requestsPerTicket);
  });

  it("gives up after the one retry", async () => {
    const { fake, config } = await setUp(start);
    fake.failNext({ status: 429, retryAfter: "0" });
    fake.failNext({ status: 429, retryAfter: "0" });
    await expect(createTicket(config, sampleFinding())).rejects.toMatchObject({
      code: "upstream_unavailable",
      extra: { upstreamStatus: 429 },
    });
    expect(fake.requests).toHaveLength(2);
  });

  it("does not wait for a long Retry-After", async () => {
    const { fake, config } = await setUp(start);
    fake.failNext({ status: 429, retryAfter: "120" });
    await expect(createTicket(config, sampleFinding())).rejects.toMatchObject({
      code: "upstream_unavailable",
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("times out a hanging tracker without retrying", async () => {
    const { fake, config } = await setUp(start);
    fake.failNext({ hang: true });
    const error = await failure(createTicket(config, sampleFinding(), { timeoutMs: 150 }));

    expect(error).toMatchObject({
      code: "upstream_unavailable",
      message: `${label} failed: timed out after 150 ms`,
      extra: { provider: name },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("maps a malformed success body to upstream_unavailable", async () => {
    const { fake, config } = await setUp(start);
    fake.failNext({ status: name === "linear" ? 200 : 201, body: { unexpected: true } });
    await expect(createTicket(config, sampleFinding())).rejects.toMatchObject({
      code: "upstream_unavailable",
      message: `${label} failed: unexpected response from the tracker`,
    });
  });

  it("does not follow a redirect (a POST would turn into a GET)", async () => {
    const { fake, config } = await setUp(start);
    fake.failNext({ status: 301, body: { message: "Moved Permanently" } });
    await expect(createTicket(config, sampleFinding())).rejects.toMatchObject({
      code: "upstream_unavailable",
      extra: { upstreamStatus: 301 },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("maps a refused connection to upstream_unavailable", async () => {
    const { fake, config } = await setUp(start);
    await fake.close();
    current = undefined;
    await expect(createTicket(config, sampleFinding())).rejects.toMatchObject({
      code: "upstream_unavailable",
      message: `${label} failed: network error (ECONNREFUSED)`,
      extra: { provider: name },
    });
  });
});
