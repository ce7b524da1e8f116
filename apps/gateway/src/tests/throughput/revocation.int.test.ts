import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, memberships } from "@posture/db";
import { startTestGateway, type TTestGateway } from "../../testing";
import { credentialChecks } from "./helpers";

// Two gateway replicas over one PostgreSQL database and one Redis: each caches the credentials
// it resolved; a revocation through either must be seen by both on the very next request.
let a: TTestGateway;
let b: TTestGateway;
beforeAll(async () => {
  const rateLimitPrefix = `rl-replicas-${randomBytes(6).toString("hex")}`;
  a = await startTestGateway({ rateLimitPrefix });
  b = await startTestGateway({ rateLimitPrefix, db: a.db });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const usage = (gw: TTestGateway, credential: { key?: string; cookie?: string }) =>
  gw.request("GET", "/api/usage", credential);

describe("cached credentials", () => {
  it("serve repeated requests without PostgreSQL once resolved", async () => {
    const actor = await a.createActor({ plan: "business" });
    expect((await usage(a, { key: actor.key })).status).toBe(200);
    const before = await credentialChecks();
    for (let i = 0; i < 5; i++) expect((await usage(a, { key: actor.key })).status).toBe(200);
    const after = await credentialChecks();
    expect(after.lookup - before.lookup).toBe(0);
    expect(after.cache - before.cache).toBe(5);
  });

  it("a key revoked through one replica is refused by the other at once", async () => {
    const owner = await a.createActor({ plan: "business", role: "OWNER" });
    const created = await a.request("POST", "/api/keys", { cookie: owner.cookie, body: { name: "ci" } });
    const { key, id } = created.body as { key: string; id: string };
    expect((await usage(a, { key })).status).toBe(200);
    expect((await usage(b, { key })).status).toBe(200);
    expect((await usage(b, { key })).status).toBe(200); // cached on both now

    expect((await a.request("DELETE", `/api/keys/${id}`, { cookie: owner.cookie })).status).toBe(200);
    const onB = await usage(b, { key });
    expect(onB.status).toBe(401);
    expect(onB.body).toMatchObject({ error: "unauthenticated", message: "Credential revoked" });
    expect((await usage(a, { key })).status).toBe(401);
  });

  it("a session signed out on one replica is dead on the other at once", async () => {
    const actor = await a.createActor({ plan: "business" });
    expect((await a.request("GET", "/api/auth/session", { cookie: actor.cookie })).status).toBe(200);
    expect((await b.request("GET", "/api/auth/session", { cookie: actor.cookie })).status).toBe(200);
    expect((await b.request("POST", "/api/auth/sign-out", { cookie: actor.cookie })).status).toBe(200);
    expect((await a.request("GET", "/api/auth/session", { cookie: actor.cookie })).status).toBe(401);
  });

  it("a change made outside the service applies once its epoch is published", async () => {
    const actor = await a.createActor({ plan: "business", role: "OWNER" });
    expect((await b.request("GET", "/api/keys", { key: actor.key })).status).toBe(200);
    // The triggers bump the organization's epoch in PostgreSQL; the replicas learn of it when
    // it is published (or when their cache entry expires, after 30 s at most).
    await a.db.db.update(memberships).set({ role: "member" }).where(eq(memberships.userId, actor.user.id));
    expect((await b.request("GET", "/api/keys", { key: actor.key })).status).toBe(200);
    await a.publishCredentialChanges(actor.orgId);
    expect((await b.request("GET", "/api/keys", { key: actor.key })).status).toBe(403);
  });

  it("keeps lastUsedAt off the request path and writes it in batches", async () => {
    const actor = await a.createActor({ plan: "business" });
    await usage(a, { key: actor.key });
    await usage(b, { key: actor.key });
    const stored = async () =>
      (
        await a.db.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.orgId, actor.orgId))
      )[0]?.at ?? null;
    expect(await stored()).toBeNull();
    await Promise.all([a.flushCredentialUse(), b.flushCredentialUse()]);
    expect(await stored()).toBeInstanceOf(Date);
  });
});
