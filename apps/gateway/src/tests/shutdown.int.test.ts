import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import { eq } from "drizzle-orm";
import { connectors, lockOrg, scans, sessions } from "@posture/db";
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

type TLogLine = { msg?: string; url?: string; scanId?: string; scans?: string[] };

function startGatewayProcess(
  extraEnv: Record<string, string> = {},
): Promise<{ url: string; proc: ChildProcess; lines: TLogLine[] }> {
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
  const lines: TLogLine[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("gateway did not start")), 60_000);
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      try {
        const entry = JSON.parse(line) as TLogLine;
        lines.push(entry);
        if (entry.msg === "gateway listening" && entry.url) {
          clearTimeout(timer);
          resolve({ url: entry.url, proc, lines });
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
  return { orgId: org.id, key, cookie: `${SESSION_COOKIE}=${s.token}`, connectorId: connector?.id ?? "" };
}

describe("SIGTERM", () => {
  it("finishes the request in flight, then exits 0 and refuses new connections", async () => {
    const f = await fixture("Shutdown");
    // A grace the 10,000-file scan fits in: the sync is answered with its result.
    const { url, proc } = await startGatewayProcess({ SHUTDOWN_GRACE_MS: "15000" });
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
  }, 60_000);
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

/** The response, or an error once `ms` have passed: a test of a bound fails at the bound, not at its timeout. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    work,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms),
    ),
  ]);
}

async function scanStatus(scanId: string): Promise<string | undefined> {
  const [row] = await db.db.select({ status: scans.status }).from(scans).where(eq(scans.id, scanId));
  return row?.status;
}

async function untilStatus(scanId: string, wanted: string[], ms: number): Promise<string | undefined> {
  const deadline = Date.now() + ms;
  let status = await scanStatus(scanId);
  while (!wanted.includes(status ?? "") && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    status = await scanStatus(scanId);
  }
  return status;
}

describe("SIGTERM during a sync longer than the declared grace", () => {
  it("answers the sync 202 with its scan id within the grace, exits 0; the scheduler's worker runs the scan once", async () => {
    const f = await fixture("Handoff", 200);
    const prefix = uniquePrefix("shutdown-handoff");
    const encryptionKey = randomBytes(32).toString("hex");
    // The scheduler's side, in this process: the service's registry on BullMQ, its scan held
    // until the test lets it go (after the gateway has gone), each run counted.
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
    let letGo: () => void = () => {};
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let runs = 0;
    const registry: TJobRegistry = {
      ...real,
      [SCAN_JOB]: {
        ...scan,
        handler: async (data, ctx) => {
          runs += 1;
          await gate;
          return scan.handler(data, ctx);
        },
      },
    };
    const workers = startWorkers({ redisUrl: TEST_REDIS_URL, prefix, registry });
    // Run in reverse: the held scan is let go before the workers are closed.
    cleanups.push(
      () => dropPrefix(prefix),
      () => jobs.close(),
      () => workers.close(),
      async () => letGo(),
    );

    // The deployment declares a 4 s grace (the orchestrator kills at 4 s).
    // One process: a cluster's second worker may still be starting when the signal comes.
    const { url, proc } = await startGatewayProcess({
      GATEWAY_WORKERS: "1",
      REDIS_URL: TEST_REDIS_URL,
      JOBS_PREFIX: prefix,
      ENCRYPTION_KEY: encryptionKey,
      SHUTDOWN_GRACE_MS: "4000",
    });
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
    const sync = fetch(`${url}/api/connectors/${f.connectorId}/sync`, {
      method: "POST",
      headers: { cookie: f.cookie },
    });
    await new Promise((r) => setTimeout(r, 500));
    const signalledAt = Date.now();
    proc.kill("SIGTERM");

    // The client gets its answer within the grace: the scan is running, here is its id.
    const res = await within(sync, 6_000, "the sync's answer");
    const answeredMs = Date.now() - signalledAt;
    expect(res.status).toBe(202);
    const body = (await res.json()) as { scanId: string; status: string };
    expect(body.scanId).toEqual(expect.any(String));
    // Held before it starts: still QUEUED, in the scheduler's hands.
    expect(body.status).toBe("QUEUED");
    expect(answeredMs).toBeLessThan(4_000);
    expect(await within(exited, 6_000, "the gateway's exit")).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(4_000);

    // The scan was never the gateway's to lose: the scheduler's worker completes it, once.
    letGo();
    expect(await untilStatus(body.scanId, ["COMPLETE", "FAILED"], 60_000)).toBe("COMPLETE");
    expect(runs).toBe(1);
    const rows = await db.db.select({ id: scans.id }).from(scans).where(eq(scans.connectorId, f.connectorId));
    expect(rows.map((r) => r.id)).toEqual([body.scanId]);
  }, 90_000);

  it("without Redis: 202 with the scan id within the grace, exit 0, and the next start finishes the scan once", async () => {
    const f = await fixture("Embedded", 50);
    const encryptionKey = randomBytes(32).toString("hex");
    // Another session holds the organization's default-rules lock: the scan, RUNNING, waits on
    // it (no statement timeout) for as long as the test likes, in the gateway's own process.
    let release: () => void = () => {};
    let held: () => void = () => {};
    const isHeld = new Promise<void>((r) => (held = r));
    const holder = db.db.transaction(async (tx) => {
      await tx.execute(lockOrg(f.orgId, "default-rules"));
      held();
      await new Promise<void>((r) => (release = r));
    });
    await isHeld;
    cleanups.push(async () => {
      release();
      await holder;
    });
    const first = await startGatewayProcess({
      ENCRYPTION_KEY: encryptionKey,
      SHUTDOWN_GRACE_MS: "4000",
      DB_STATEMENT_TIMEOUT_MS: "0",
    });
    const exited = new Promise<number | null>((resolve) => first.proc.on("exit", (code) => resolve(code)));
    const sync = fetch(`${first.url}/api/connectors/${f.connectorId}/sync`, {
      method: "POST",
      headers: { cookie: f.cookie },
    });
    const deadline = Date.now() + 20_000;
    let scanId: string | undefined;
    while (!scanId && Date.now() < deadline) {
      const [row] = await db.db
        .select({ id: scans.id, status: scans.status })
        .from(scans)
        .where(eq(scans.connectorId, f.connectorId));
      if (row?.status === "RUNNING") scanId = row.id;
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(scanId).toEqual(expect.any(String));
    const signalledAt = Date.now();
    first.proc.kill("SIGTERM");

    const res = await within(sync, 6_000, "the sync's answer");
    expect(Date.now() - signalledAt).toBeLessThan(4_000);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ scanId, status: "RUNNING" });
    const code = await within(exited, 6_000, "the gateway's exit");
    expect(code).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(4_000);
    const finishedHere = (lines: TLogLine[]) =>
      lines.filter((l) => l.msg === "scan finished" && l.scanId === scanId);
    expect(finishedHere(first.lines)).toEqual([]);

    // The scan is still RUNNING, its job gone with the process: the next start queues it again.
    release();
    await holder;
    const second = await startGatewayProcess({ ENCRYPTION_KEY: encryptionKey });
    expect(await untilStatus(scanId ?? "", ["COMPLETE", "FAILED"], 30_000)).toBe("COMPLETE");
    expect(second.lines.find((l) => l.msg === "resuming scans a stopped gateway left")?.scans).toEqual([
      scanId,
    ]);
    const rows = await db.db.select({ id: scans.id }).from(scans).where(eq(scans.connectorId, f.connectorId));
    expect(rows.map((r) => r.id)).toEqual([scanId]);
    const finished = () => finishedHere([...first.lines, ...second.lines]);
    const logged = Date.now() + 5_000;
    while (finished().length === 0 && Date.now() < logged) await new Promise((r) => setTimeout(r, 50));
    expect(finished().map((l) => l.scanId)).toEqual([scanId]);
    second.proc.kill("SIGTERM");
  }, 90_000);
});

/** A raw keep-alive connection: requests written by hand, responses read off the wire one by one. */
function rawConnection(port: number) {
  const socket = connect({ host: "127.0.0.1", port });
  let buffer = "";
  let waiting:
    { resolve: (r: { status: number; connection: string }) => void; reject: (e: Error) => void } | undefined;
  const settle = () => {
    const end = buffer.indexOf("\r\n\r\n");
    if (!waiting || end < 0) return;
    const head = buffer.slice(0, end);
    let bodyEnd = end + 4 + Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (/transfer-encoding: *chunked/i.test(head)) {
      const last = buffer.indexOf("\r\n0\r\n\r\n", end);
      if (last < 0) return;
      bodyEnd = last + 7;
    }
    if (buffer.length < bodyEnd) return;
    buffer = buffer.slice(bodyEnd);
    const w = waiting;
    waiting = undefined;
    w.resolve({
      status: Number(head.slice(9, 12)),
      connection: /^connection: *(.*)$/im.exec(head)?.[1]?.trim().toLowerCase() ?? "",
    });
  };
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    settle();
  });
  const fail = (err: Error) => {
    const w = waiting;
    waiting = undefined;
    w?.reject(err);
  };
  let ended = false;
  socket.on("error", (err) => fail(err));
  socket.on("end", () => {
    ended = true;
    fail(new Error("closed by the server before an answer"));
  });
  const ready = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return {
    async get(path: string, key: string) {
      await ready;
      return new Promise<{ status: number; connection: string }>((resolve, reject) => {
        if (ended) return reject(new Error("closed by the server before the request"));
        waiting = { resolve, reject };
        socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      });
    },
    close: () => socket.destroy(),
  };
}

describe("SIGTERM with idle keep-alive connections", () => {
  it("answers a request sent on a kept-alive connection at any moment of the drain, then closes it", async () => {
    const f = await fixture("KeepAlive", 10);
    const { url, proc, lines } = await startGatewayProcess({ SHUTDOWN_GRACE_MS: "6000" });
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
    const port = Number(new URL(url).port);
    // Eight connections, each answered once and kept alive before the signal.
    const conns = Array.from({ length: 8 }, () => rawConnection(port));
    cleanups.push(async () => conns.forEach((c) => c.close()));
    expect(await Promise.all(conns.map((c) => c.get("/api/usage", f.key)))).toEqual(
      conns.map(() => ({ status: 200, connection: "keep-alive" })),
    );

    proc.kill("SIGTERM");
    const deadline = Date.now() + 5_000;
    while (!lines.some((l) => l.msg?.startsWith("shutting down")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    // Each connection's next request 0, 100 … 700 ms into the drain (the drain used to close
    // connections idle for 250 ms: the requests from then on were reset or never answered).
    const answers = await Promise.all(
      conns.map(async (c, i) => {
        await new Promise((r) => setTimeout(r, i * 100));
        return c.get("/api/usage", f.key).catch((err: Error) => ({ status: 0, connection: err.message }));
      }),
    );
    expect(answers).toEqual(conns.map(() => ({ status: 200, connection: "close" })));
    expect(await within(exited, 8_000, "the gateway's exit")).toBe(0);
  }, 60_000);
});
