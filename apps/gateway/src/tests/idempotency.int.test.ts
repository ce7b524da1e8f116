import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { apiKeys, idempotencyKeys, sessions } from "@posture/db";
import { requestFingerprint } from "../middleware/idempotency";
import { type TTestGateway, useTestGateway } from "../testing";
import { errorCode, freshIp } from "./helpers";

// POST /api/keys is a real write with a visible effect (a row in api_keys): a replay must not add one.
const gw = useTestGateway();
let actor: Awaited<ReturnType<TTestGateway["createActor"]>>;
beforeAll(async () => {
  actor = await gw.createActor({ plan: "business", role: "OWNER" });
});

const newKey = () => `idem-${randomBytes(8).toString("hex")}`;
const createKey = (idemKey: string | undefined, body: unknown, cookie = actor.cookie) =>
  gw.request("POST", "/api/keys", {
    cookie,
    body,
    ip: freshIp(),
    headers: idemKey === undefined ? {} : { "idempotency-key": idemKey },
  });
const keysNamed = async (name: string) =>
  (await gw.db.db.select().from(apiKeys).where(eq(apiKeys.name, name))).length;
const sessionIdOf = async (userId: string) => {
  const [row] = await gw.db.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, userId));
  if (!row) throw new Error("no session");
  return row.id;
};

describe("Idempotency-Key", () => {
  it("replays the first result without running the request again", async () => {
    const k = newKey();
    const name = `replay ${k}`;
    const first = await createKey(k, { name });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    const again = await createKey(k, { name });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await keysNamed(name)).toBe(1);
  });

  it("treats a body with reordered keys as the same request", async () => {
    const k = newKey();
    const name = `order ${k}`;
    const first = await gw.request("POST", "/api/keys", {
      cookie: actor.cookie,
      ip: freshIp(),
      rawBody: `{"name":"${name}","expiresInDays":30}`,
      headers: { "idempotency-key": k, "content-type": "application/json" },
    });
    const second = await gw.request("POST", "/api/keys", {
      cookie: actor.cookie,
      ip: freshIp(),
      rawBody: `{ "expiresInDays": 30, "name": "${name}" }`,
      headers: { "idempotency-key": k, "content-type": "application/json" },
    });
    expect(first.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(await keysNamed(name)).toBe(1);
  });

  it("refuses the same key with a different body: 409 conflict", async () => {
    const k = newKey();
    expect((await createKey(k, { name: `a ${k}` })).status).toBe(201);
    const other = await createKey(k, { name: `b ${k}` });
    expect(other.status).toBe(409);
    expect(errorCode(other)).toBe("conflict");
    expect(await keysNamed(`b ${k}`)).toBe(0);
  });

  it("refuses the same key while the first request is still in flight: 409 conflict", async () => {
    const k = newKey();
    const body = { name: `inflight ${k}` };
    const scope = `${actor.orgId}:${await sessionIdOf(actor.user.id)}`;
    // What the middleware writes when the first request starts; it completes it when that ends.
    await gw.db.db.insert(idempotencyKeys).values({
      scope,
      key: k,
      requestHash: requestFingerprint("POST", "/api/keys", body),
    });
    const res = await createKey(k, body);
    expect(res.status).toBe(409);
    expect(errorCode(res)).toBe("conflict");
    expect(await keysNamed(body.name)).toBe(0);
  });

  it("runs concurrent identical requests once: the others are replays or 409 conflict", async () => {
    const k = newKey();
    const name = `race ${k}`;
    const results = await Promise.all(Array.from({ length: 6 }, () => createKey(k, { name })));
    expect(await keysNamed(name)).toBe(1);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => (r.body as { id: string }).id)).size).toBe(1);
    expect(created.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(errorCode(r)).toBe("conflict");
    }
  });

  it("stores and replays a 4xx result too", async () => {
    const k = newKey();
    const first = await createKey(k, { name: "" });
    expect(first.status).toBe(400);
    const again = await createKey(k, { name: "" });
    expect(again.status).toBe(400);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("forgets a key whose request failed with a 5xx, so a retry runs", async () => {
    const k = newKey();
    const name = `retry ${k}`;
    await gw.db.db.execute(
      sql.raw(`CREATE FUNCTION idem_fail() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'simulated outage'; END $$;
        CREATE TRIGGER idem_fail BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION idem_fail();`),
    );
    let failed;
    try {
      failed = await createKey(k, { name });
    } finally {
      await gw.db.db.execute(sql.raw(`DROP TRIGGER idem_fail ON api_keys; DROP FUNCTION idem_fail();`));
    }
    expect(failed.status).toBe(500);
    const rows = await gw.db.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, k));
    expect(rows).toHaveLength(0);

    const retry = await createKey(k, { name });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(await keysNamed(name)).toBe(1);
  });

  it("treats a record older than 24 hours as absent", async () => {
    const k = newKey();
    expect((await createKey(k, { name: `old ${k}` })).status).toBe(201);
    await gw.db.db
      .update(idempotencyKeys)
      .set({ createdAt: new Date(Date.now() - 25 * 3600_000) })
      .where(eq(idempotencyKeys.key, k));
    const fresh = await createKey(k, { name: `new ${k}` });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    expect(await keysNamed(`new ${k}`)).toBe(1);
  });

  it("scopes keys to the credential: another session's identical request runs on its own", async () => {
    const k = newKey();
    const name = `scope ${k}`;
    const otherCookie = await gw.createSession(actor.orgId, actor.user.id);
    const a = await createKey(k, { name });
    const b = await createKey(k, { name }, otherCookie);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect((b.body as { id: string }).id).not.toBe((a.body as { id: string }).id);
    expect(await keysNamed(name)).toBe(2);
  });

  it("rejects a malformed key with 400 invalid_input", async () => {
    for (const bad of ["", "x".repeat(256), "tab\there"]) {
      const res = await createKey(bad, { name: "malformed" });
      expect(res.status).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
    expect((await createKey("x".repeat(255), { name: `long ${newKey()}` })).status).toBe(201);
    expect(await keysNamed("malformed")).toBe(0);
  });

  it("does not apply to anonymous requests: they get their 401 and nothing is stored", async () => {
    const k = newKey();
    const res = await createKey(k, { name: "anon" }, "");
    expect(res.status).toBe(401);
    const rows = await gw.db.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, k));
    expect(rows).toHaveLength(0);
  });

  it("leaves requests without the header alone", async () => {
    const name = `plain ${newKey()}`;
    expect((await createKey(undefined, { name })).status).toBe(201);
    expect((await createKey(undefined, { name })).status).toBe(201);
    expect(await keysNamed(name)).toBe(2);
  });
});
