import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@posture/db/testing";
import { freePort } from "@posture/platform/testing";
import { startAgain } from "../../../../../tooling/test/first-start.mjs";
import { TEST_REDIS_URL } from "../../testing";
import { freshIp, times } from "../helpers";

// The gateway as `pnpm start` and the Docker image run it: the esbuild bundle on plain Node,
// loading npm packages from node_modules, PGlite on demand and the migrations beside the db package.
// The bundle is the app's own dist/main.js, built (when stale) by the integration project's global
// set-up with posture-build, as `pnpm start` builds it (tooling/test/app-bundles.mjs).
const main = fileURLToPath(new URL("../../../dist/main.js", import.meta.url));
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "posture-build-"));
}, 60_000);
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

type TStarted = { proc: ChildProcess; urls: string[]; pids: number[]; stdout: string[] };

/** Starts the bundle and resolves once `listeners` processes have logged "gateway listening". */
function start(env: Record<string, string>, listeners = 1): Promise<TStarted> {
  const { REDIS_URL: _r, DATABASE_URL: _d, ...inherited } = process.env;
  const proc = spawn(process.execPath, [main], {
    cwd: dir,
    // A short grace: the test's idle keep-alive connections are closed at its hand-off.
    env: {
      ...inherited,
      HOST: "127.0.0.1",
      COOKIE_SECURE: "false",
      LOG_LEVEL: "info",
      SHUTDOWN_GRACE_MS: "5000",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(proc);
  const started: TStarted = { proc, urls: [], pids: [], stdout: [] };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening:\n${started.stdout.join("\n")}`)), 60_000);
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      started.stdout.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string; pid?: number };
        if (entry.msg === "gateway listening" && entry.url && entry.pid) {
          started.urls.push(entry.url);
          started.pids.push(entry.pid);
          if (started.urls.length === listeners) {
            clearTimeout(timer);
            resolve(started);
          }
        }
      } catch {
        // the demo banner
      }
    });
    proc.on("exit", (code) => reject(new Error(`exited early with ${code}:\n${started.stdout.join("\n")}`)));
  });
}

const exitCode = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));

describe("the production build", () => {
  it("runs the embedded default: PGlite loaded on demand, migrated, seeded", async () => {
    // The run's one embedded first start (tooling/test/first-start.mjs) is this bundle's, in an
    // empty directory: PGlite loaded on demand, migrated, the demo seeded, its banner printed
    // after the listening line, and a clean exit on SIGTERM.
    // A short grace, as start() gives: the test's idle keep-alive connections close at its hand-off.
    const again = await startAgain({
      args: [main],
      env: { HOST: "127.0.0.1", COOKIE_SECURE: "false", SHUTDOWN_GRACE_MS: "5000" },
    });
    children.push(again.proc);
    const { first } = again;
    const listened = first.stdout.findIndex((l) => l.includes('"msg":"gateway listening"'));
    const bannered = first.stdout.findIndex((l) => /svc_ak_[0-9a-f]{40}/.test(l));
    expect(listened).toBeGreaterThanOrEqual(0);
    expect(bannered).toBeGreaterThan(listened);
    expect(first.exitCode).toBe(0);
    // Started again on (a copy of) that directory: the seeded data and the banner's key serve.
    try {
      expect((await fetch(`${again.url}/api/health`)).status).toBe(200);
      const usage = await fetch(`${again.url}/api/usage`, {
        headers: { authorization: `Bearer ${first.banner.key}` },
      });
      expect(usage.status).toBe(200);
      const exited = exitCode(again.proc);
      again.proc.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      await rm(again.dir, { recursive: true, force: true });
    }
    // PGlite's start and the first migration take a while on a busy machine.
  }, 300_000);

  describe("in cluster mode", () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await createTestDb();
    });
    afterAll(async () => {
      await db.drop();
    });

    it("shares the port between workers, keeps limits exact, aggregates metrics and stops cleanly", async () => {
      const [port, metricsPort] = [await freePort(), await freePort()];
      const { proc, pids } = await start(
        {
          PORT: String(port),
          DATABASE_URL: db.url,
          REDIS_URL: TEST_REDIS_URL,
          ENCRYPTION_KEY: randomBytes(32).toString("hex"),
          TRUST_PROXY: "loopback",
          GATEWAY_WORKERS: "2",
          METRICS_PORT: String(metricsPort),
          LOG_LEVEL: "info",
        },
        2,
      );
      expect(new Set(pids).size).toBe(2);
      const url = `http://127.0.0.1:${port}`;
      const ip = freshIp();
      const get = () =>
        fetch(`${url}/api/no-such-route`, { headers: { "x-forwarded-for": ip, connection: "close" } });
      const first = await times(20, get);
      expect(first.map((r) => r.status)).toEqual(Array(20).fill(404));
      expect((await get()).status).toBe(429);

      const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const served = [...scraped.matchAll(/^http_requests_total\{[^}]*route="unmatched"[^}]*\} (\d+)$/gm)]
        .map((m) => Number(m[1]))
        .reduce((a, b) => a + b, 0);
      expect(served).toBe(21);
      expect(scraped).toMatch(/^rate_limit_refusals_total\{policy="anonymous"\} 1$/m);

      const exited = exitCode(proc);
      proc.kill("SIGTERM");
      expect(await exited).toBe(0);
    }, 60_000);
  });
});
