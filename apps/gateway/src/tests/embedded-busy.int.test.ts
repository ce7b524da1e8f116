import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, createUser } from "@posture/account";
import { createEmbeddedDb, sessions, trustedDomains, type DbHandle } from "@posture/db";
import { generateSessionToken, SESSION_ABSOLUTE_MS, SESSION_COOKIE } from "@posture/platform";
import { readEnv } from "../env";
import { startGateway, type TGateway } from "../server";
import { freshIp } from "./helpers";

// Issue 33, item 3: on the embedded default a request no longer waits behind background work.
// With a job's transaction holding PGlite, a write answers 503 with Retry-After within the
// request bound (DB_REQUEST_TIMEOUT_MS) instead of minutes later, saying why; it is not made
// after it was refused; readiness stays 200; once the job is done the same write succeeds.

let handle: DbHandle;
let gateway: TGateway;
let cookie: string;

beforeAll(async () => {
  handle = await createEmbeddedDb();
  await handle.migrate();
  const org = await createOrganization(handle.db, { name: "Busy", plan: "business" });
  const user = await createUser(handle.db, {
    orgId: org.id,
    email: "owner@busy.test",
    password: "long-enough-pw",
    role: "OWNER",
  });
  const session = generateSessionToken();
  await handle.db.insert(sessions).values({
    tokenHash: session.tokenHash,
    userId: user.id,
    orgId: org.id,
    expiresAt: new Date(Date.now() + SESSION_ABSOLUTE_MS),
  });
  cookie = `${SESSION_COOKIE}=${session.token}`;
  const env = readEnv({
    PORT: "0",
    HOST: "127.0.0.1",
    TRUST_PROXY: "loopback",
    COOKIE_SECURE: "false",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    LOG_LEVEL: "silent",
    DB_REQUEST_TIMEOUT_MS: "500",
  });
  gateway = await startGateway({ env, db: handle, redis: null });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await handle?.close();
});

async function call(method: string, path: string, body?: unknown) {
  const started = Date.now();
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      cookie,
      "x-forwarded-for": freshIp(),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    ms: Date.now() - started,
  };
}

describe("a request on the embedded database while a job holds it", () => {
  it("answers 503 with Retry-After at once, makes nothing, and succeeds after the job", async () => {
    let release = () => {};
    let started = () => {};
    const isStarted = new Promise<void>((r) => (started = r));
    const held = new Promise<void>((r) => (release = r));
    // A background job's long transaction (a scan's snapshot, an activity load).
    const job = handle.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      started();
      await held;
    });
    await isStarted;
    let during: Awaited<ReturnType<typeof call>>[];
    try {
      during = [
        await call("POST", "/api/sharing/trusted-domains", { domain: "partner-busy.example" }),
        await call("GET", "/api/health"),
      ];
    } finally {
      release();
      await job;
    }
    const [write, health] = during;
    expect(write?.status).toBe(503);
    expect(write?.retryAfter).toBe("2");
    expect(write?.body).toEqual({
      error: "service_unavailable",
      message:
        "The embedded database is busy with background work (a scan or a job) and this request would have waited behind it; retry shortly",
    });
    // Bounded by DB_REQUEST_TIMEOUT_MS (500 ms) per wait, not by the job (which never ended).
    expect(write?.ms).toBeLessThan(10_000);
    expect(health?.status).toBe(200);

    expect(await handle.db.select({ domain: trustedDomains.domain }).from(trustedDomains)).toEqual([]);

    const retried = await call("POST", "/api/sharing/trusted-domains", { domain: "partner-busy.example" });
    expect(retried.status).toBe(201);
    expect(await handle.db.select({ domain: trustedDomains.domain }).from(trustedDomains)).toEqual([
      { domain: "partner-busy.example" },
    ]);
  });
});
