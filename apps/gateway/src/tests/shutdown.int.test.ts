import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import { eq } from "drizzle-orm";
import { connectors, scans, sessions } from "@posture/db";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { buildJobRegistry } from "@posture/job-modules";
import { createBullQueue, startWorkers, type TJobRegistry } from "@posture/jobs";
import { dropPrefix, uniquePrefix } from "@posture/jobs/testing";
import { generateSessionToken, SESSION_ABSOLUTE_MS, SESSION_COOKIE } from "@posture/platform";
import { SCAN_JOB } from "@posture/scans";
import { randomClientIp, TEST_REDIS_URL } from "../testing";

// The real entry point in its own process: SIGTERM stops accepting, lets the in-flight request
// finish, closes pools and exits 0.
let db: TestDb;
let child: ChildProcess | undefined;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  child?.kill("SIGKILL");
  for (const clean of cleanups.splice(0).reverse()) await clean().catch(() => {});
  await db.drop();
});

function startGatewayProcess(
  extraEnv: Record<string, string> = {},
): Promise<{ url: string; proc: ChildProcess }> {
  // No REDIS_URL: limits and jobs run in-process, as in the embedded default.
  const { REDIS_URL: _redis, ...inherited } = process.env;
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("../main.ts", import.meta.url))],
    {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: {
        ...inherited,
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: randomBytes(32).toString("hex"),
        COOKIE_SECURE: "false",
        LOG_LEVEL: "info",
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  child = proc;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("gateway did not start")), 60_000);
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "gateway listening" && entry.url) {
          clearTimeout(timer);
          resolve({ url: entry.url, proc });
        }
      } catch {
        // not a log line
      }
    });
    proc.on("exit", (code) => reject(new Error(`gateway exited early with ${code}`)));
  });
}

async function fixture(name: string, fileCount = 10_000) {
  const org = await createOrganization(db.db, { name, plan: "business" });
  const user = await createUser(db.db, {
    orgId: org.id,
    email: `owner@${name.toLowerCase()}.test`,
    password: "long-enough-pw",
    role: "OWNER",
  });
  const { key } = await createApiKeyFor(db.db, { orgId: org.id, userId: user.id, name: "k" });
  const s = generateSessionToken();
  await db.db.insert(sessions).values({
    tokenHash: s.tokenHash,
    userId: user.id,
    orgId: org.id,
    expiresAt: new Date(Date.now() + SESSION_ABSOLUTE_MS),
  });
  const [connector] = await db.db
    .insert(connectors)
    .values({
      orgId: org.id,
      type: "google_workspace",
      displayName: "Big",
      mode: "demo",
      config: { fileCount },
    })
    .returning();
  return { key, cookie: `${SESSION_COOKIE}=${s.token}`, connectorId: connector?.id ?? "" };
}

describe("SIGTERM", () => {
  it("finishes the request in flight, then exits 0 and refuses new connections", async () => {
    const f = await fixture("Shutdown");
    const { url, proc } = await startGatewayProcess();
    expect((await fetch(`${url}/api/usage`, { headers: { authorization: `Bearer ${f.key}` } })).status).toBe(
      200,
    );

    // A scan of 10,000 files takes a few seconds: SIGTERM arrives while it runs.
    const inFlight = fetch(`${url}/api/connectors/${f.connectorId}/sync`, {
      method: "POST",
      headers: { cookie: f.cookie },
    });
    await new Promise((r) => setTimeout(r, 300));
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
    proc.kill("SIGTERM");

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "COMPLETE" });
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  });
});

describe("SIGTERM under keep-alive load", () => {
  it("loses no request, finishes the scan in flight and exits 0 within 30 s", async () => {
    const f = await fixture("Loaded");
    // Distinct client addresses (each its own /64, the anonymous limit's unit for IPv6) through a trusted loopback proxy: the per-IP limit is counted
    // on every request without a 60-per-minute budget ending the run.
    const { url, proc } = await startGatewayProcess({ TRUST_PROXY: "loopback" });
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));

    const sync = fetch(`${url}/api/connectors/${f.connectorId}/sync`, {
      method: "POST",
      headers: { cookie: f.cookie },
    });
    const statuses = new Map<number, number>();
    const errors = new Map<string, number>();
    let finished: () => void = () => {};
    const done = new Promise<void>((resolve) => (finished = resolve));
    // The callback form returns the instance (events, stop); the callback marks the end.
    const load = autocannon(
      {
        url,
        connections: 8,
        duration: 40,
        headers: { authorization: `Bearer ${f.key}` },
        requests: [
          {
            method: "GET",
            path: "/api/usage",
            setupRequest: (req) => ({
              ...req,
              headers: { ...req.headers, "x-forwarded-for": randomClientIp() },
            }),
          },
        ],
      },
      () => finished(),
    );
    load.on("response", (_client: unknown, status: number) =>
      statuses.set(status, (statuses.get(status) ?? 0) + 1),
    );
    load.on("reqError", (err: Error & { code?: string }) => {
      const code = err.code ?? err.message;
      errors.set(code, (errors.get(code) ?? 0) + 1);
    });

    // Load and the scan both under way, then the orchestrator's stop signal.
    await new Promise((r) => setTimeout(r, 2_000));
    const answeredBefore = [...statuses.values()].reduce((a, b) => a + b, 0);
    const signalledAt = Date.now();
    proc.kill("SIGTERM");

    const res = await sync;
    const code = await exited;
    const exitMs = Date.now() - signalledAt;
    load.stop();
    await done;

    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "COMPLETE" });
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(30_000);
    // Every request the gateway accepted was answered, and answered 200: none reset, none 5xx.
    expect(answeredBefore).toBeGreaterThan(10);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(answeredBefore);
    expect([...statuses.keys()]).toEqual([200]);
    // After the listener closed, the load generator's reconnects are refused: those requests
    // never reached the gateway (a load balancer sends them elsewhere). Nothing else may fail.
    const lost = [...errors.entries()].filter(([c]) => c !== "ECONNREFUSED");
    expect(lost).toEqual([]);
  }, 60_000);
});

describe("SIGTERM during a sync longer than the shutdown bound", () => {
  it("answers the sync 202 with its scan id, exits 0, and the scan completes in the scheduler", async () => {
    const f = await fixture("Handoff", 200);
    const prefix = uniquePrefix("shutdown-handoff");
    const encryptionKey = randomBytes(32).toString("hex");
    // The scheduler's side, in this process: the service's registry on BullMQ, its scan made to
    // take 27 s, longer than the 25 s the gateway used to allow a shutdown before exiting 1.
    const jobs = createBullQueue({ redisUrl: TEST_REDIS_URL, prefix, registry: () => registry });
    const real: TJobRegistry = buildJobRegistry({
      db: db.db,
      jobs,
      runtime: {
        encryptionKey: Buffer.from(encryptionKey, "hex"),
        publicUrl: "http://localhost:3000",
        webhookAllowPrivateTargets: false,
      },
      log: { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} },
    });
    const scan = real[SCAN_JOB];
    if (!scan) throw new Error("no scan job");
    const registry: TJobRegistry = {
      ...real,
      [SCAN_JOB]: {
        ...scan,
        handler: async (data, ctx) => {
          await new Promise((r) => setTimeout(r, 27_000));
          return scan.handler(data, ctx);
        },
      },
    };
    const workers = startWorkers({ redisUrl: TEST_REDIS_URL, prefix, registry });
    cleanups.push(
      () => dropPrefix(prefix),
      () => jobs.close(),
      () => workers.close(),
    );

    const { url, proc } = await startGatewayProcess({
      REDIS_URL: TEST_REDIS_URL,
      JOBS_PREFIX: prefix,
      ENCRYPTION_KEY: encryptionKey,
      SHUTDOWN_TIMEOUT_MS: "4000",
    });
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
    const sync = fetch(`${url}/api/connectors/${f.connectorId}/sync`, {
      method: "POST",
      headers: { cookie: f.cookie },
    });
    await new Promise((r) => setTimeout(r, 500));
    const signalledAt = Date.now();
    proc.kill("SIGTERM");

    // The client gets its answer before the bound: the scan is running, here is its id.
    const res = await sync;
    expect(res.status).toBe(202);
    const body = (await res.json()) as { scanId: string; status: string };
    expect(body.scanId).toEqual(expect.any(String));
    expect(["QUEUED", "RUNNING"]).toContain(body.status);
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(6_000);

    // The scan was never the gateway's to lose: the scheduler's worker completes it.
    const deadline = Date.now() + 60_000;
    let status: string | undefined;
    while (Date.now() < deadline) {
      [{ status } = { status: undefined }] = await db.db
        .select({ status: scans.status })
        .from(scans)
        .where(eq(scans.id, body.scanId));
      if (status === "COMPLETE" || status === "FAILED") break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe("COMPLETE");
  }, 90_000);
});
