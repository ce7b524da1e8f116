import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import autocannon from "autocannon";
import { createTestDb } from "@posture/db/testing";
import { freePort } from "../lib/child";
import { seedFindings, seedOwnerWithKey } from "../lib/seed";

// Where a JSON GET's CPU goes on the production build: one gateway process under --cpu-prof,
// `mode` warm (read cache on: hits) or cold (READ_CACHE_MAX_MB=0), 10 connections for 10 s.
//   pnpm --filter @posture/bench exec tsx src/probes/read-path-cpu.ts warm|cold DIR [path]
const mode = process.argv[2] ?? "warm";
const dir = process.argv[3] ?? "/tmp";
const path = process.argv[4] ?? "/api/findings?limit=50";
const db = await createTestDb();
const owner = await seedOwnerWithKey(db.db, "business");
await seedFindings(db.db, owner.orgId, 2_000);
const port = await freePort();
const child = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, "dist/main.js"], {
  cwd: new URL("../../../gateway/", import.meta.url).pathname,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: db.url,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    TRUST_PROXY: "loopback",
    COOKIE_SECURE: "false",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    GATEWAY_WORKERS: "1",
    ...(mode === "cold" ? { READ_CACHE_MAX_MB: "0" } : {}),
  },
  stdio: ["ignore", "inherit", "inherit"],
});
const url = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${url}/api/health`)).status < 600) break;
  } catch {
    if (i > 300) throw new Error("gateway did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
}
let n = 0;
const result = await autocannon({
  url,
  connections: 10,
  duration: 10,
  headers: { authorization: `Bearer ${owner.key}` },
  requests: [
    {
      method: "GET",
      path,
      setupRequest: (req) => ({
        ...req,
        headers: { ...req.headers, "x-forwarded-for": `2001:db8:1:${(++n).toString(16)}::1` },
      }),
    },
  ],
});
console.log(
  `${mode}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, non2xx ${result.non2xx}`,
);
const exited = new Promise((r) => child.once("exit", r));
child.kill("SIGTERM");
await exited;
await db.drop();
