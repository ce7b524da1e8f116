import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import { createDb, sessions, type DbHandle } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { TcpRelay } from "@posture/platform/testing";
import { createRedis, generateSessionToken, SESSION_ABSOLUTE_MS, SESSION_COOKIE } from "@posture/platform";
import type { Redis } from "ioredis";
import { readEnv } from "../env";
import { startGateway, type TGateway } from "../server";
import { TEST_REDIS_URL } from "../testing";
import { freshIp } from "./helpers";

let direct: TestDb;
let relay: TcpRelay;
let relayed: DbHandle;
let redis: Redis;
let gateway: TGateway;
let key: string;
let cookie: string;
// What the gateway logs during the outage: one warning per request, never an error with a stack.
const logLines: Array<{ level: number; msg: string; cause?: string }> = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});

beforeAll(async () => {
  direct = await createTestDb();
  relay = new TcpRelay(direct.url, 5432);
  await relay.start();
  const relayUrl = relay.through(direct.url);
  // The deployment's defaults: a frozen server is noticed by a request's client-side bound
  // (DB_REQUEST_TIMEOUT_MS, 2 s), a download's by the pool's (statement timeout 5 s + 1 s), a
  // silent network by the connect timeout (1.5 s).
  relayed = createDb({ databaseUrl: relayUrl, poolSize: 5 });

  const org = await createOrganization(direct.db, { name: "Faults", plan: "business" });
  const user = await createUser(direct.db, {
    orgId: org.id,
    email: `owner-${randomBytes(3).toString("hex")}@faults.test`,
    password: "long-enough-pw",
    role: "OWNER",
  });
  key = (await createApiKeyFor(direct.db, { orgId: org.id, userId: user.id, name: "k" })).key;
  const s = generateSessionToken();
  await direct.db.insert(sessions).values({
    tokenHash: s.tokenHash,
    userId: user.id,
    orgId: org.id,
    expiresAt: new Date(Date.now() + SESSION_ABSOLUTE_MS),
  });
  cookie = `${SESSION_COOKIE}=${s.token}`;

  redis = createRedis(TEST_REDIS_URL);
  const env = readEnv({
    PORT: "0",
    HOST: "127.0.0.1",
    TRUST_PROXY: "loopback",
    COOKIE_SECURE: "false",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    LOG_LEVEL: "silent",
    DATABASE_URL: relayUrl,
  });
  gateway = await startGateway({
    env,
    db: relayed,
    redis,
    log: pino({ level: "warn" }, sink),
    rateLimitPrefix: `rl-test-${randomBytes(6).toString("hex")}`,
    inProcessJobs: true,
  });
});

afterAll(async () => {
  await gateway?.close();
  await relayed?.close().catch(() => {});
  redis?.disconnect();
  await relay?.stop();
  await direct?.drop();
});

async function timed(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const started = Date.now();
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      "x-forwarded-for": freshIp(),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    ms: Date.now() - started,
  };
}

/** What a download answers, as text (a CSV). */
async function timedText(method: string, path: string, headers: Record<string, string>) {
  const started = Date.now();
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { "x-forwarded-for": freshIp(), ...headers },
  });
  const text = await res.text();
  return { status: res.status, text, ms: Date.now() - started };
}

/** Five pooled connections open and idle (the pool's size), each through the relay. */
async function openPooledConnections() {
  await Promise.all(Array.from({ length: 5 }, () => relayed.db.execute(sql`select pg_sleep(0.05)`)));
  // All five open (one may be lent out again already, to the batched credential-use writes).
  expect(relayed.poolStats?.().total).toBe(5);
}

const calls = () => [
  timed("GET", "/api/usage", { authorization: `Bearer ${key}` }),
  timed("GET", "/api/connectors", { cookie }),
  timed("POST", "/api/keys", { cookie }, { name: "during the outage" }),
  timed("GET", "/api/timeline", { authorization: `Bearer ${key}` }),
  timed("GET", "/trpc/usage.get", { authorization: `Bearer ${key}` }),
];

async function expectOutage() {
  for (const res of await Promise.all(calls())) {
    expect(res.status).toBe(503);
    const code = res.body.error;
    // REST carries the contract's body; tRPC its own envelope with the code in data.
    const contractCode =
      typeof code === "string" ? code : (code as { data?: { error?: string } }).data?.error;
    expect(contractCode).toBe("service_unavailable");
    // As the client sees it: the 2 s bound plus what a loaded machine adds.
    expect(res.ms).toBeLessThan(2_500);
  }
  const health = await timed("GET", "/api/health");
  expect(health.status).toBe(503);
  expect(health.body).toMatchObject({ status: "degraded", checks: { db: "down", redis: "ok" } });
  expect(health.ms).toBeLessThan(2_500);
  const live = await timed("GET", "/api/health/live");
  expect(live.status).toBe(200);
  const warnings = logLines.filter((l) => l.msg === "dependency unavailable");
  expect(warnings.length).toBeGreaterThan(0);
  expect(warnings[0]?.cause).toMatch(/ECONN|timeout|terminated/i);
  expect(logLines.filter((l) => l.level >= 50)).toEqual([]);
}

async function expectRecovery() {
  // The pool reconnects on demand: no restart, at most a moment.
  const deadline = Date.now() + 10_000;
  let usage = await timed("GET", "/api/usage", { authorization: `Bearer ${key}` });
  while (usage.status !== 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    usage = await timed("GET", "/api/usage", { authorization: `Bearer ${key}` });
  }
  expect(usage.status).toBe(200);
  for (const res of await Promise.all(calls()))
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  expect((await timed("GET", "/api/health")).status).toBe(200);
}

describe("PostgreSQL unreachable", () => {
  it("serves normally through the relay", async () => {
    for (const res of await Promise.all(calls())) expect(res.status).toBeLessThan(300);
    expect((await timed("GET", "/api/health")).status).toBe(200);
  });

  it("refused connections: every call is 503 service_unavailable at once; liveness stays 200", async () => {
    await relay.cut("refuse");
    await expectOutage();
  });

  it("recovers without a restart once the database is back", async () => {
    await relay.restore();
    await expectRecovery();
  });

  it("a frozen server (SIGSTOP: open connections never answered): 503 within 2 s, back when it thaws", async () => {
    // Every pooled connection is open and idle: the freeze catches queries on them mid-flight.
    await openPooledConnections();
    for (const res of await Promise.all(calls())) expect(res.status).toBeLessThan(300);
    relay.freeze();
    try {
      await expectOutage();
    } finally {
      relay.thaw();
    }
    await expectRecovery();
  });

  it("a frozen server: an export waits out a 2.5 s freeze that an interactive read gives up on", async () => {
    const exportPath = "/api/findings/export?format=csv";
    const bearer = { authorization: `Bearer ${key}` };
    // The credential is cached and the export's statements prepared: the freeze meets the export
    // in its own queries, on connections already open (a new one would meet the connect bound).
    const warm = await timedText("GET", exportPath, bearer);
    expect(warm.status).toBe(200);
    await openPooledConnections();
    relay.freeze();
    let exported: Awaited<ReturnType<typeof timedText>>;
    try {
      const pending = timedText("GET", exportPath, bearer);
      const read = await timed("GET", "/api/usage", bearer);
      expect(read.status).toBe(503);
      expect(read.body.error).toBe("service_unavailable");
      expect(read.ms).toBeLessThan(2_500);
      await new Promise((r) => setTimeout(r, 2_500 - read.ms));
      relay.thaw();
      exported = await pending;
    } finally {
      // A failed assertion above must not leave the relay frozen (thaw is once per freeze).
      relay.thaw();
    }
    // The export's bound is the pool's (6 s on the client): it outlived the freeze, whole.
    expect(exported.status).toBe(200);
    expect(exported.ms).toBeGreaterThanOrEqual(2_500);
    expect(exported.text).toBe(warm.text);
    // And the same read is answered again.
    await expectRecovery();
  });

  it("a silent network (connections never answered): 503 within 2 s, bounded by the connect timeout", async () => {
    await relay.cut("blackhole");
    await expectOutage();
    await relay.restore();
    await expectRecovery();
  });
});
