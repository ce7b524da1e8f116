import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { lockOrg, scans } from "@posture/db";
import { buildJobRegistry } from "@posture/composition/jobs";
import { createBullQueue, startWorkers, type TJobRegistry } from "@posture/jobs";
import { dropPrefix, uniquePrefix } from "@posture/jobs/testing";
import { SCAN_JOB } from "@posture/scans";
import { TEST_REDIS_URL } from "../testing";
import {
  cleanups,
  db,
  fixture,
  startGatewayProcess,
  type TLogLine,
  untilStatus,
  useShutdownDb,
  within,
} from "./shutdown-testing";

// The real entry point (the bundle of main.ts) in its own process: SIGTERM stops accepting,
// lets the in-flight request finish, closes pools and exits 0: a sync longer than the declared grace is handed off, and
// idle keep-alive connections are answered, then closed.
useShutdownDb();

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
