import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { apiKeys, memberships, organizations, sessions, users, type TPlanId, type TRole } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { hashPassword } from "@posture/account";
import {
  ALL_ORGANIZATIONS,
  createLogger,
  createRedis,
  generateApiKey,
  generateSessionToken,
  SESSION_ABSOLUTE_MS,
  SESSION_COOKIE,
  type TJobQueue,
  type TRuntime,
} from "@posture/platform";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { readEnv, type TEnv } from "./env";
import { startGateway, type TGateway } from "./server";

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export type TTestGatewayOptions = {
  /** null: no Redis (embedded-style in-process limiter). Default: the real local Redis. */
  redisUrl?: string | null;
  env?: Partial<Record<keyof TEnv, string>>;
  jobs?: TJobQueue;
  /** Share rate-limit counters between harnesses (e.g. two replicas); default: unique per harness. */
  rateLimitPrefix?: string;
  /** Capture logs (default: silent). */
  log?: Logger;
  /** Real-mode source API base URLs: local fakes of Google and Microsoft. */
  sourceEndpoints?: TRuntime["sourceEndpoints"];
  /** Another harness's database (a second replica); the owner drops it. */
  db?: TestDb;
};

export type TRequestOptions = {
  key?: string;
  cookie?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Client address as seen through the trusted loopback proxy; defaults to this harness's own. */
  ip?: string;
};

export type TTestResponse = { status: number; headers: Headers; body: unknown; text: string };

/** A client address of its own (IPv6 documentation range), so a test's rate-limit counters start at zero. */
export const randomClientIp = () =>
  `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::${randomBytes(2).toString("hex")}`;

/**
 * A real gateway on port 0 over a database of its own on the local PostgreSQL and a key prefix of
 * its own on the local Redis. Requests come "through" a trusted loopback proxy with a per-harness
 * client address, so rate-limit counters of different test files never meet.
 */
export async function startTestGateway(opts: TTestGatewayOptions = {}) {
  const db: TestDb = opts.db ?? (await createTestDb());
  const redisUrl = opts.redisUrl === undefined ? TEST_REDIS_URL : opts.redisUrl;
  const redis: Redis | null = redisUrl ? createRedis(redisUrl) : null;
  const env = readEnv({
    PORT: "0",
    HOST: "127.0.0.1",
    TRUST_PROXY: "loopback",
    COOKIE_SECURE: "false",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    LOG_LEVEL: "silent",
    DATABASE_URL: db.url,
    // The suite shares two cores with other work: requests keep the view and its SETs, at the
    // pool's own numbers (statement 5 s, client 6 s) rather than the 2 s a deployment gets.
    // tests/db-down.int.test.ts runs the deployment's default.
    DB_REQUEST_TIMEOUT_MS: "6000",
    ...opts.env,
  });
  const gateway: TGateway = await startGateway({
    env,
    db,
    redis,
    log: opts.log ?? createLogger(env.LOG_LEVEL),
    rateLimitPrefix: opts.rateLimitPrefix ?? `rl-test-${randomBytes(6).toString("hex")}`,
    inProcessJobs: true,
    ...(opts.sourceEndpoints ? { sourceEndpoints: opts.sourceEndpoints } : {}),
    ...(opts.jobs ? { jobs: opts.jobs } : {}),
  });
  const ip = randomClientIp();

  async function request(method: string, path: string, o: TRequestOptions = {}): Promise<TTestResponse> {
    const headers: Record<string, string> = { "x-forwarded-for": o.ip ?? ip, ...o.headers };
    if (o.key !== undefined) headers.authorization = `Bearer ${o.key}`;
    if (o.cookie !== undefined) headers.cookie = o.cookie;
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(`${gateway.url}${path}`, { method, headers, body, redirect: "manual" });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (PDF, HTML): keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  async function createOrg(
    o: { plan?: TPlanId; name?: string; isPartner?: boolean; managedByOrgId?: string } = {},
  ) {
    const [org] = await db.db
      .insert(organizations)
      .values({
        name: o.name ?? `Org ${randomBytes(3).toString("hex")}`,
        plan: o.plan ?? "business",
        isPartner: o.isPartner ?? false,
        managedByOrgId: o.managedByOrgId ?? null,
      })
      .returning();
    if (!org) throw new Error("org insert failed");
    return org;
  }

  async function createUser(
    orgId: string,
    role: TRole = "OWNER",
    o: { email?: string; password?: string } = {},
  ) {
    const email = o.email ?? `user-${randomBytes(4).toString("hex")}@example.test`;
    const password = o.password ?? `pw-${randomBytes(8).toString("hex")}`;
    const [user] = await db.db
      .insert(users)
      .values({ email, passwordHash: await hashPassword(password) })
      .returning();
    if (!user) throw new Error("user insert failed");
    await db.db.insert(memberships).values({ userId: user.id, orgId, role });
    return { ...user, password, role };
  }

  async function createApiKey(
    orgId: string,
    userId: string,
    o: { expiresAt?: Date; revokedAt?: Date; scopes?: string[] } = {},
  ) {
    const k = generateApiKey();
    const [row] = await db.db
      .insert(apiKeys)
      .values({
        orgId,
        createdByUserId: userId,
        name: "test",
        keyHash: k.keyHash,
        keyPrefix: k.keyPrefix,
        ...o,
      })
      .returning();
    if (!row) throw new Error("key insert failed");
    return { key: k.key, id: row.id };
  }

  async function createSession(orgId: string, userId: string) {
    const s = generateSessionToken();
    await db.db.insert(sessions).values({
      tokenHash: s.tokenHash,
      userId,
      orgId,
      expiresAt: new Date(Date.now() + SESSION_ABSOLUTE_MS),
    });
    return `${SESSION_COOKIE}=${s.token}`;
  }

  async function publishDataChanges(orgId: string = ALL_ORGANIZATIONS) {
    const writes = gateway.deps.dataWrites;
    if (writes) await (await writes.begin([orgId])).end();
  }

  /** An organization with one member of the given role, holding both an API key and a session. */
  async function createActor(o: { plan?: TPlanId; role?: TRole; isPartner?: boolean; orgId?: string } = {}) {
    const orgId = o.orgId ?? (await createOrg({ plan: o.plan, isPartner: o.isPartner })).id;
    const user = await createUser(orgId, o.role ?? "OWNER");
    const { key } = await createApiKey(orgId, user.id);
    const cookie = await createSession(orgId, user.id);
    return { orgId, user, key, cookie };
  }

  return {
    url: gateway.url,
    gateway,
    db,
    redis,
    ip,
    request,
    createOrg,
    createUser,
    createApiKey,
    createSession,
    createActor,
    /**
     * What an operator's out-of-band SQL change to credentials needs to take effect before the
     * cache TTL: the organization's credential epoch (bumped by the triggers) published.
     */
    publishCredentialChanges: async (orgId: string) => {
      await gateway.deps.access.afterMutation(orgId, null);
      await publishDataChanges(orgId);
    },
    /**
     * What an out-of-band SQL change to an organization's data needs to be seen by every read
     * cache (a test's fixture written to the database directly): its data epochs marked.
     */
    publishDataChanges,
    /** Writes the batched lastUsedAt / lastSeenAt times now instead of at the next flush. */
    flushCredentialUse: () => gateway.deps.access.touches.flush(),
    /** Waits for the jobs this gateway queued (a scan's partner refresh, deliveries) to finish. */
    settleJobs: (withinMs = 60_000) => gateway.deps.jobs.settled?.(withinMs) ?? Promise.resolve(),
    close: async () => {
      await gateway.close();
      redis?.disconnect();
      if (!opts.db) await db.drop();
    },
  };
}

export type TTestGateway = Awaited<ReturnType<typeof startTestGateway>>;

/**
 * A test file's gateway: started in a `beforeAll` and closed in an `afterAll` registered where this
 * is called, so `const gw = useTestGateway()` at the top of a file replaces the usual `let` and two
 * hooks. Options given as a function are read when the gateway starts. Touching the gateway before
 * its `beforeAll` has run (at a file's top level) throws.
 */
export function useTestGateway(
  options: TTestGatewayOptions | (() => TTestGatewayOptions | Promise<TTestGatewayOptions>) = {},
): TTestGateway {
  let started: TTestGateway | undefined;
  beforeAll(async () => {
    started = await startTestGateway(typeof options === "function" ? await options() : options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as TTestGateway, {
    get(_, prop) {
      if (!started)
        throw new Error("useTestGateway: the gateway starts in beforeAll; use it in tests and hooks");
      const value: unknown = Reflect.get(started, prop);
      return typeof value === "function" ? value.bind(started) : value;
    },
  });
}
