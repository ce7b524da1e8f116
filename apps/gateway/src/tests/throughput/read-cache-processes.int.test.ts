import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@posture/platform/testing";
import { db, fixture, useShutdownDb } from "../shutdown-testing";
import { TEST_REDIS_URL } from "../../testing";

// Issue 34's "done when": two gateway processes — the production bundle, as `pnpm start` runs
// it — over one PostgreSQL database and one Redis, each with the read cache of its own process.
// A read is cached on B; a write through A (a mutation, then a scan that A's scheduler workers
// run off BullMQ) must be seen by B's very next read.

type TProcess = { url: string; metrics: string; proc: ChildProcess };

useShutdownDb();
const started: TProcess[] = [];
const env = {
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  // Jobs of their own: no other file's scheduler may work this file's scans.
  JOBS_PREFIX: `jobs-rc-${randomBytes(4).toString("hex")}`,
};

async function startProcess(args: string[]): Promise<TProcess> {
  const metricsPort = await freePort();
  const proc = spawn(
    process.execPath,
    [fileURLToPath(new URL("../../../dist/main.js", import.meta.url)), ...args],
    {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      env: {
        ...process.env,
        ...env,
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL,
        TRUST_PROXY: "loopback",
        COOKIE_SECURE: "false",
        LOG_LEVEL: "info",
        METRICS_PORT: String(metricsPort),
        GATEWAY_WORKERS: "1",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("gateway did not start")), 60_000);
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "gateway listening" && entry.url) {
          clearTimeout(timer);
          resolve(entry.url);
        }
      } catch {
        // not a log line
      }
    });
    proc.once("exit", (code) => reject(new Error(`gateway exited early with ${code}`)));
  });
  const p = { url, metrics: `http://127.0.0.1:${metricsPort}/metrics`, proc };
  started.push(p);
  return p;
}

let a: TProcess;
let b: TProcess;
beforeAll(async () => {
  [a, b] = await Promise.all([startProcess(["--with-scheduler"]), startProcess([])]);
}, 120_000);
afterAll(async () => {
  await Promise.all(
    started.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.proc.exitCode !== null) return resolve();
          p.proc.once("exit", () => resolve());
          p.proc.kill("SIGTERM");
        }),
    ),
  );
});

let ip = 0;
type TWho = { key: string } | { cookie: string };
async function call(p: TProcess, method: string, path: string, who: TWho | string, body?: unknown) {
  ip += 1;
  const credential = typeof who === "string" ? { key: who } : who;
  const res = await fetch(`${p.url}${path}`, {
    method,
    headers: {
      ...("key" in credential
        ? { authorization: `Bearer ${credential.key}` }
        : { cookie: credential.cookie }),
      "x-forwarded-for": `2001:db8:7c:${ip.toString(16)}::1`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  return JSON.parse(text) as unknown;
}

/** B's own count of answers served from its cache (read_cache_requests_total{outcome="hit"}). */
async function hitsOn(p: TProcess): Promise<number> {
  const text = await (await fetch(p.metrics)).text();
  return Number(/^read_cache_requests_total\{outcome="hit"\} (\S+)/m.exec(text)?.[1] ?? 0);
}

/** Reads twice on B; the second answer must have come from B's cache. */
async function cachedOnB(path: string, key: string) {
  await call(b, "GET", path, key);
  const before = await hitsOn(b);
  const body = await call(b, "GET", path, key);
  expect((await hitsOn(b)) - before).toBe(1);
  return body;
}

describe("the read cache across two gateway processes", () => {
  it("a mutation through one process is seen by the other's next read", async () => {
    const acme = await fixture(`Acme${randomBytes(3).toString("hex")}`, 200);
    const titles = async () =>
      (
        (await call(b, "GET", "/api/incidents", acme.key)) as { incidents: Array<{ title: string }> }
      ).incidents.map((i) => i.title);
    await cachedOnB("/api/incidents", acme.key);
    await call(a, "POST", "/api/incidents", acme.key, { title: "Seen across processes", priority: "P2" });
    expect(await titles()).toContain("Seen across processes");
  });

  it("a scan run by one process's scheduler is seen by the other's next read", async () => {
    const globex = await fixture(`Globex${randomBytes(3).toString("hex")}`, 300);
    const empty = (await cachedOnB("/api/findings?limit=100", globex.key)) as { total: number };
    expect(empty.total).toBe(0);
    await call(a, "POST", `/api/connectors/${globex.connectorId}/sync`, { cookie: globex.cookie });
    const after = (await call(b, "GET", "/api/findings?limit=100", globex.key)) as { total: number };
    expect(after.total).toBeGreaterThan(0);
  });
});
