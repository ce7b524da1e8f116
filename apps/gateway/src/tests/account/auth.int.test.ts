import { legacyScryptHash } from "@posture/account";
import { auditLog, memberships, sessions, users } from "@posture/db";
import { sha256Hex, SESSION_COOKIE, SESSION_IDLE_MS } from "@posture/platform";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { freshIp, requester, sessionCookie, sessionSetCookie, tokenOf } from "./helpers";

const gw = useTestGateway();
let req: ReturnType<typeof requester>;
beforeAll(async () => {
  req = requester(gw);
});

async function account(plan: "business" | "team" = "business") {
  const org = await gw.createOrg({ plan, name: `Org ${plan}` });
  const user = await gw.createUser(org.id, "ADMIN");
  return { org, user };
}

const signIn = (email: string, password: string, o: { cookie?: string; ip?: string } = {}) =>
  req("POST", "/api/auth/sign-in", { body: { email, password }, ...o });

async function sessionRow(cookie: string) {
  const [row] = await gw.db.db
    .select()
    .from(sessions)
    .where(eq(sessions.tokenHash, sha256Hex(tokenOf(cookie))));
  if (!row) throw new Error("session row not found");
  return row;
}

describe("POST /api/auth/sign-in", () => {
  it("answers with the user and organization and sets a hardened session cookie", async () => {
    const { org, user } = await account();
    const res = await signIn(user.email.toUpperCase(), user.password);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: { id: user.id, email: user.email, role: "ADMIN" },
      organization: { id: org.id, name: org.name, plan: "business" },
      memberships: [{ organizationId: org.id, name: org.name, role: "ADMIN", isSandbox: false }],
    });
    const set = sessionSetCookie(res) ?? "";
    expect(set).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{40,}`));
    expect(set).toContain("HttpOnly");
    expect(set).toContain("SameSite=Lax");
    expect(set).toContain("Path=/");
    expect(set).toMatch(/Max-Age=\d+/);

    // Stored only as a hash.
    const row = await sessionRow(sessionCookie(res));
    expect(row.tokenHash).not.toBe(tokenOf(sessionCookie(res)));
    expect(row).toMatchObject({ userId: user.id, orgId: org.id, revokedAt: null });
    expect(row.expiresAt.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
  });

  it("gives a wrong password and an unknown email the identical 401", async () => {
    const { user } = await account();
    const wrong = await signIn(user.email, "not-the-password");
    const unknown = await signIn("nobody@example.test", "not-the-password");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: "invalid_credentials" });
    expect(wrong.text).toBe(unknown.text);
    expect(sessionSetCookie(wrong)).toBeUndefined();
  });

  it("replaces an old scrypt hash with argon2id at the first successful sign-in, and only then", async () => {
    const { user } = await account();
    const legacy = await legacyScryptHash(user.password);
    await gw.db.db.update(users).set({ passwordHash: legacy }).where(eq(users.id, user.id));
    const storedHash = async () =>
      (await gw.db.db.select({ h: users.passwordHash }).from(users).where(eq(users.id, user.id)))[0]?.h;

    expect((await signIn(user.email, "wrong")).status).toBe(401);
    expect(await storedHash()).toBe(legacy); // a failed attempt changes nothing
    expect((await signIn(user.email, user.password)).status).toBe(200);
    const upgraded = await storedHash();
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await signIn(user.email, user.password)).status).toBe(200);
    expect(await storedHash()).toBe(upgraded); // current parameters: not rehashed again
  });

  it("survives a burst of concurrent sign-ins: every one answered, none a 5xx", async () => {
    const { user } = await account();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        signIn(user.email, i % 2 ? user.password : "wrong", { ip: freshIp() }),
      ),
    );
    const statuses = results.map((r) => r.status);
    // The per-email limit (10/min) answers most; the hashing that does run is bounded, never a 5xx.
    expect(statuses.every((s) => s === 200 || s === 401 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 200 || s === 401).length).toBeGreaterThan(0);
  });

  it("signs a user with several memberships into the oldest", async () => {
    const { org, user } = await account();
    const later = await gw.createOrg({ name: "Later Org" });
    await gw.db.db.insert(memberships).values({ userId: user.id, orgId: later.id, role: "OWNER" });
    const res = await signIn(user.email, user.password);
    expect(res.body).toMatchObject({ organization: { id: org.id } });
  });

  it("limits attempts per email to 10 a minute, whatever the address", async () => {
    const { user } = await account();
    for (let i = 0; i < 10; i++) {
      const res = await signIn(user.email, "wrong-password");
      expect(res.status).toBe(401);
    }
    const limited = await signIn(user.email, user.password);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(sessionSetCookie(limited)).toBeUndefined();
  });

  it("limits attempts per IP to 10 a minute, whatever the email", async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      expect((await signIn(`nobody-${i}@example.test`, "x", { ip })).status).toBe(401);
    }
    const limited = await signIn("someone-else@example.test", "x", { ip });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("rejects a body without email or password as invalid input", async () => {
    const res = await req("POST", "/api/auth/sign-in", { body: { email: "a@b.test" } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: "invalid_input",
      details: [expect.objectContaining({ path: "password" })],
    });
  });

  it("rotates the session: signing in with a session cookie kills the old session", async () => {
    const { user } = await account();
    const first = sessionCookie(await signIn(user.email, user.password));
    const second = sessionCookie(await signIn(user.email, user.password, { cookie: first }));
    expect(second).not.toBe(first);
    expect((await req("GET", "/api/auth/session", { cookie: first })).status).toBe(401);
    expect((await req("GET", "/api/auth/session", { cookie: second })).status).toBe(200);
    expect((await sessionRow(first)).revokedAt).not.toBeNull();
  });

  it("records SIGN_IN and, for a known email, SIGN_IN_FAILED in the user's organization", async () => {
    const { org, user } = await account();
    await signIn(user.email, "wrong-password");
    await signIn(user.email, user.password);
    const rows = await gw.db.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.orgId, org.id))
      .orderBy(auditLog.seq);
    expect(rows.map((r) => [r.action, r.userEmail])).toEqual([
      ["SIGN_IN_FAILED", user.email],
      ["SIGN_IN", user.email],
    ]);
  });
});

describe("GET /api/auth/session", () => {
  it("returns the sign-in body for a live session", async () => {
    const { org, user } = await account("team");
    const signedIn = await signIn(user.email, user.password);
    const res = await req("GET", "/api/auth/session", { cookie: sessionCookie(signedIn) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(signedIn.body);
    expect(res.body).toMatchObject({ organization: { id: org.id, plan: "team" } });
  });

  it("is 401 without a cookie and 403 session_required for an API key", async () => {
    const actor = await gw.createActor();
    expect(await req("GET", "/api/auth/session")).toMatchObject({
      status: 401,
      body: { error: "unauthenticated" },
    });
    expect(await req("GET", "/api/auth/session", { key: actor.key })).toMatchObject({
      status: 403,
      body: { error: "session_required" },
    });
  });

  it("refuses a session idle for longer than the idle timeout", async () => {
    const { user } = await account();
    const cookie = sessionCookie(await signIn(user.email, user.password));
    const row = await sessionRow(cookie);
    await gw.db.db
      .update(sessions)
      .set({ lastSeenAt: new Date(Date.now() - SESSION_IDLE_MS - 60_000) })
      .where(eq(sessions.id, row.id));
    expect(await req("GET", "/api/auth/session", { cookie })).toMatchObject({ status: 401 });
  });

  it("refuses a session past its absolute lifetime even when recently used", async () => {
    const { user } = await account();
    const cookie = sessionCookie(await signIn(user.email, user.password));
    expect((await req("GET", "/api/auth/session", { cookie })).status).toBe(200);
    const row = await sessionRow(cookie);
    await gw.db.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000), lastSeenAt: new Date() })
      .where(eq(sessions.id, row.id));
    // Out-of-band SQL: the gateways' credential caches learn of it when it is published.
    await gw.publishCredentialChanges(row.orgId);
    expect(await req("GET", "/api/auth/session", { cookie })).toMatchObject({ status: 401 });
  });
});

describe("POST /api/auth/sign-out", () => {
  it("revokes the session server-side at once and clears the cookie", async () => {
    const { org, user } = await account();
    const cookie = sessionCookie(await signIn(user.email, user.password));
    const res = await req("POST", "/api/auth/sign-out", { cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ signedOut: true });
    expect(sessionSetCookie(res)).toMatch(new RegExp(`^${SESSION_COOKIE}=;.*Max-Age=0`));
    // The browser may ignore the cleared cookie; the server does not.
    expect((await req("GET", "/api/auth/session", { cookie })).status).toBe(401);
    expect((await sessionRow(cookie)).revokedAt).not.toBeNull();
    const actions = (await gw.db.db.select().from(auditLog).where(eq(auditLog.orgId, org.id))).map(
      (r) => r.action,
    );
    expect(actions).toContain("SIGN_OUT");
  });

  it("is 401 without a session", async () => {
    expect((await req("POST", "/api/auth/sign-out")).status).toBe(401);
  });
});
