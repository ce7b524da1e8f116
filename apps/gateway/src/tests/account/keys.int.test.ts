import { apiKeys } from "@posture/db";
import { API_KEY_PATTERN } from "@posture/platform";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { requester } from "./helpers";

const gw = useTestGateway();
let req: ReturnType<typeof requester>;
beforeAll(async () => {
  req = requester(gw);
});

type TCreated = {
  key: string;
  id: string;
  name: string;
  keyPrefix: string;
  expiresAt: string | null;
  createdAt: string;
};
type TListed = {
  keys: Array<Record<string, unknown> & { id: string; status: string; lastUsedAt: string | null }>;
};

async function createKey(cookie: string, body: unknown) {
  const res = await req("POST", "/api/keys", { cookie, body });
  return { res, created: res.body as TCreated };
}

describe("POST /api/keys", () => {
  it("creates a key for an OWNER session and returns the full key this once", async () => {
    const owner = await gw.createActor({ role: "OWNER" });
    const { res, created } = await createKey(owner.cookie, { name: "  CI deploys  ", expiresInDays: 30 });
    expect(res.status).toBe(201);
    expect(created).toMatchObject({ name: "CI deploys", keyPrefix: created.key.slice(0, 12) });
    expect(created.key).toMatch(API_KEY_PATTERN);
    const expiresIn = new Date(created.expiresAt ?? 0).getTime() - new Date(created.createdAt).getTime();
    expect(expiresIn).toBe(30 * 86_400_000);

    const [row] = await gw.db.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
    expect(row?.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.keyHash).not.toContain(created.key);

    // The new key works at once.
    expect((await req("GET", "/api/usage", { key: created.key })).status).toBe(200);
  });

  it("creates a key without expiry when expiresInDays is omitted", async () => {
    const owner = await gw.createActor({ role: "OWNER" });
    const { res, created } = await createKey(owner.cookie, { name: "forever" });
    expect(res.status).toBe(201);
    expect(created.expiresAt).toBeNull();
  });

  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["81 characters", "x".repeat(81)],
  ])("rejects a %s name with invalid_input details", async (_label, name) => {
    const owner = await gw.createActor({ role: "OWNER" });
    const { res } = await createKey(owner.cookie, { name });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: "invalid_input",
      details: [expect.objectContaining({ path: "name" })],
    });
  });

  it("accepts an 80-character name and rejects out-of-range expiresInDays", async () => {
    const owner = await gw.createActor({ role: "OWNER" });
    expect((await createKey(owner.cookie, { name: "y".repeat(80) })).res.status).toBe(201);
    for (const expiresInDays of [0, 3651, 1.5]) {
      const { res } = await createKey(owner.cookie, { name: "k", expiresInDays });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ details: [expect.objectContaining({ path: "expiresInDays" })] });
    }
  });

  it("is 403 for an ADMIN, 403 session_required for an API key, 402 on the team plan", async () => {
    const admin = await gw.createActor({ role: "ADMIN" });
    expect(await createKey(admin.cookie, { name: "k" })).toMatchObject({
      res: { status: 403, body: { error: "forbidden" } },
    });

    const owner = await gw.createActor({ role: "OWNER" });
    const viaKey = await req("POST", "/api/keys", { key: owner.key, body: { name: "k" } });
    expect(viaKey).toMatchObject({ status: 403, body: { error: "session_required" } });

    const team = await gw.createActor({ role: "OWNER", plan: "team" });
    const { res } = await createKey(team.cookie, { name: "k" });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      error: "plan_upgrade_required",
      upgrade: { feature: "apiAccess", requiredPlan: "business" },
    });
  });

  it("checks the plan before the input: a team OWNER with a bad name gets 402", async () => {
    const team = await gw.createActor({ role: "OWNER", plan: "team" });
    expect((await createKey(team.cookie, { name: "" })).res.status).toBe(402);
  });
});

describe("GET /api/keys", () => {
  it("lists newest first with prefix and status, never the key or hash", async () => {
    const owner = await gw.createActor({ role: "OWNER" });
    const first = (await createKey(owner.cookie, { name: "first" })).created;
    const second = (await createKey(owner.cookie, { name: "second" })).created;
    await req("DELETE", `/api/keys/${first.id}`, { cookie: owner.cookie });
    const past = new Date(Date.now() - 1000);
    const expired = await gw.createApiKey(owner.orgId, owner.user.id, { expiresAt: past });

    const res = await req("GET", "/api/keys", { key: owner.key });
    expect(res.status).toBe(200);
    const { keys } = res.body as TListed;
    const byId = new Map(keys.map((k) => [k.id, k]));
    expect(byId.get(first.id)).toMatchObject({
      status: "revoked",
      name: "first",
      keyPrefix: first.keyPrefix,
    });
    expect(byId.get(first.id)?.revokedAt).toEqual(expect.any(String));
    expect(byId.get(second.id)).toMatchObject({ status: "active", revokedAt: null, expiresAt: null });
    expect(byId.get(expired.id)).toMatchObject({ status: "expired", expiresAt: past.toISOString() });
    for (const k of keys) {
      expect(Object.keys(k).sort()).toEqual(
        [
          "createdAt",
          "expiresAt",
          "id",
          "keyPrefix",
          "lastUsedAt",
          "name",
          "revokedAt",
          "scopes",
          "status",
        ].sort(),
      );
    }
    expect(res.text).not.toContain(second.key);
    const createdAts = keys.map((k) => String(k.createdAt));
    expect(createdAts).toEqual([...createdAts].sort().reverse());
    expect(keys.findIndex((k) => k.id === second.id)).toBeLessThan(keys.findIndex((k) => k.id === first.id));
  });

  it("lets an ADMIN list, not a member; a team-plan key gets 402", async () => {
    const admin = await gw.createActor({ role: "ADMIN" });
    expect((await req("GET", "/api/keys", { key: admin.key })).status).toBe(200);
    expect((await req("GET", "/api/keys", { cookie: admin.cookie })).status).toBe(200);

    const member = await gw.createActor({ role: "member" });
    expect(await req("GET", "/api/keys", { key: member.key })).toMatchObject({
      status: 403,
      body: { error: "forbidden" },
    });

    const team = await gw.createActor({ role: "OWNER", plan: "team" });
    expect(await req("GET", "/api/keys", { key: team.key })).toMatchObject({
      status: 402,
      body: { error: "plan_upgrade_required" },
    });
  });

  it("shows only the caller's organization's keys", async () => {
    const a = await gw.createActor({ role: "OWNER" });
    const b = await gw.createActor({ role: "OWNER" });
    const { keys } = (await req("GET", "/api/keys", { key: a.key })).body as TListed;
    const [bKey] = await gw.db.db.select().from(apiKeys).where(eq(apiKeys.orgId, b.orgId));
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.some((k) => k.id === bKey?.id)).toBe(false);
  });

  it("keeps lastUsedAt once a key is used", async () => {
    const owner = await gw.createActor({ role: "OWNER" });
    const { created } = await createKey(owner.cookie, { name: "used" });
    const listed = async () =>
      ((await req("GET", "/api/keys", { cookie: owner.cookie })).body as TListed).keys.find(
        (k) => k.id === created.id,
      );
    expect((await listed())?.lastUsedAt).toBeNull();
    const before = Date.now();
    expect((await req("GET", "/api/usage", { key: created.key })).status).toBe(200);
    // Uses are recorded off the request path and written in batches (every few seconds).
    await gw.flushCredentialUse();
    const lastUsedAt = (await listed())?.lastUsedAt;
    expect(new Date(lastUsedAt ?? 0).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });
});

describe("DELETE /api/keys/{id}", () => {
  it("revokes at once: the very next request with the key is 401", async () => {
    const owner = await gw.createActor({ role: "OWNER" });
    const { created } = await createKey(owner.cookie, { name: "short-lived" });
    expect((await req("GET", "/api/usage", { key: created.key })).status).toBe(200);
    const res = await req("DELETE", `/api/keys/${created.id}`, { cookie: owner.cookie });
    expect(res).toMatchObject({ status: 200, body: { revoked: true } });
    expect(await req("GET", "/api/usage", { key: created.key })).toMatchObject({
      status: 401,
      body: { error: "unauthenticated" },
    });
    // Revoking again is harmless and keeps the key revoked.
    expect((await req("DELETE", `/api/keys/${created.id}`, { cookie: owner.cookie })).status).toBe(200);
    expect((await req("GET", "/api/usage", { key: created.key })).status).toBe(401);
  });

  it("is 404 for another organization's key and for an unknown id, and leaves the key working", async () => {
    const a = await gw.createActor({ role: "OWNER" });
    const b = await gw.createActor({ role: "OWNER" });
    const { created } = await createKey(b.cookie, { name: "b's key" });
    const res = await req("DELETE", `/api/keys/${created.id}`, { cookie: a.cookie });
    expect(res).toMatchObject({ status: 404, body: { error: "not_found" } });
    expect((await req("DELETE", "/api/keys/key_doesnotexist", { cookie: a.cookie })).status).toBe(404);
    expect((await req("GET", "/api/usage", { key: created.key })).status).toBe(200);
  });

  it("is 403 for an ADMIN", async () => {
    const owner = await gw.createActor({ role: "OWNER" });
    const admin = await gw.createUser(owner.orgId, "ADMIN");
    const adminCookie = await gw.createSession(owner.orgId, admin.id);
    const { created } = await createKey(owner.cookie, { name: "k" });
    const res = await req("DELETE", `/api/keys/${created.id}`, { cookie: adminCookie });
    expect(res).toMatchObject({ status: 403, body: { error: "forbidden" } });
  });
});

describe("expired keys", () => {
  it("get 401 as soon as expiresAt has passed", async () => {
    const owner = await gw.createActor({ role: "OWNER" });
    const expired = await gw.createApiKey(owner.orgId, owner.user.id, {
      expiresAt: new Date(Date.now() - 1000),
    });
    expect(await req("GET", "/api/usage", { key: expired.key })).toMatchObject({ status: 401 });
  });
});
