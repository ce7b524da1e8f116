import { describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { call, subscribe, waitForEvents } from "./harness";

// Issue 33, item 6: a sandbox made through the API can receive webhooks. Its creator signs in
// with `organizationId` (every membership is listed by sign-in and GET /api/auth/session), and
// that session manages the sandbox's webhooks, which session-only endpoints require.

const gw = useTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });

function cookieOf(res: { headers: Headers }): string {
  return (res.headers.getSetCookie() ?? []).map((c) => c.split(";")[0]).join("; ");
}

async function signIn(body: Record<string, unknown>) {
  const res = await fetch(`${gw.url}/api/auth/sign-in`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, cookie: cookieOf(res) };
}

describe("signing into one of one's organizations", () => {
  it("lands a session in the sandbox, where its webhooks are managed; refuses a stranger's", async () => {
    const home = await gw.createActor({ plan: "business" });
    const made = await call(gw, "POST", "/api/sandbox", { cookie: home.cookie }, { name: "Try webhooks" });
    expect(made.status).toBe(201);
    const sandbox = made.body as { id: string; name: string };

    const plain = await signIn({ email: home.user.email, password: home.user.password });
    expect(plain.status).toBe(200);
    expect(plain.body.organization).toMatchObject({ id: home.orgId });
    expect(plain.body.memberships).toEqual([
      { organizationId: home.orgId, name: expect.any(String), role: "OWNER", isSandbox: false },
      { organizationId: sandbox.id, name: sandbox.name, role: "OWNER", isSandbox: true },
    ]);

    const inSandbox = await signIn({
      email: home.user.email,
      password: home.user.password,
      organizationId: sandbox.id,
    });
    expect(inSandbox.status).toBe(200);
    // A sandbox is on the enterprise plan, whatever its creator's (docs/sandbox.md).
    expect(inSandbox.body.organization).toEqual({ id: sandbox.id, name: sandbox.name, plan: "enterprise" });
    const session = await call(gw, "GET", "/api/auth/session", { cookie: inSandbox.cookie });
    expect(session.body).toMatchObject({ organization: { id: sandbox.id }, user: { role: "OWNER" } });

    // The session subscribes a receiver, a scenario's scan delivers to it, signed.
    const { receiver, secret } = await subscribe(gw, inSandbox.cookie, ["finding.new"]);
    try {
      const run = await call(
        gw,
        "POST",
        "/api/sandbox/scenarios",
        { cookie: inSandbox.cookie },
        {
          kind: "public_link_created",
        },
      );
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      const [delivered] = await waitForEvents(
        receiver,
        secret,
        (e) => e.event === "finding.new" && /anyone who has the link/.test(String(e.data.title)),
      );
      expect(delivered?.data.severity).toMatch(/^(HIGH|CRITICAL)$/);
    } finally {
      await receiver.close();
    }
    const homeHooks = await call(gw, "GET", "/api/webhooks", { cookie: home.cookie });
    expect(JSON.stringify(homeHooks.body)).not.toContain(receiver.url);

    const stranger = await gw.createActor({ plan: "business" });
    const refused = await signIn({
      email: home.user.email,
      password: home.user.password,
      organizationId: stranger.orgId,
    });
    expect(refused).toMatchObject({
      status: 403,
      body: { error: "forbidden", message: "You are not a member of that organization" },
    });
    const wrongPassword = await signIn({
      email: home.user.email,
      password: "not-the-password",
      organizationId: sandbox.id,
    });
    expect(wrongPassword.status).toBe(401);
  });
});
