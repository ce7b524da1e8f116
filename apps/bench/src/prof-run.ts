import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { createTestDb } from "@posture/db/testing";
import { recordAudit } from "@posture/platform";
import { seedOwnerWithKey } from "./lib/seed";

const db = await createTestDb();
const owner = await seedOwnerWithKey(db.db, "business");
for (let i = 0; i < 100; i++) await recordAudit(db.db, { orgId: owner.orgId, action: "SCAN_TRIGGERED", target: "x", userId: owner.userId, userEmail: owner.userEmail });
const child = spawn(process.execPath, ["--cpu-prof", "--cpu-prof-dir=/tmp/prof", "--import", "tsx", "src/main.ts"], {
  cwd: "/work/main/apps/gateway",
  env: { ...process.env, PORT: "3777", HOST: "127.0.0.1", DATABASE_URL: db.url, REDIS_URL: "redis://127.0.0.1:6379", TRUST_PROXY: "loopback", COOKIE_SECURE: "false", ENCRYPTION_KEY: randomBytes(32).toString("hex"), LOG_LEVEL: "warn" },
  stdio: "inherit",
});
await new Promise((r) => setTimeout(r, 6000));
let n = 0;
const path = process.env.P ?? "/api/audit?limit=50";
const r = await autocannon({ url: `http://127.0.0.1:3777${path}`, connections: 10, duration: 6, headers: { authorization: `Bearer ${owner.key}` }, setupClient: (c) => c.setHeaders({ authorization: `Bearer ${owner.key}`, "x-forwarded-for": `10.1.${n % 250}.${(n++ >> 8) % 250}` }) });
console.log("req/s", r.requests.average, "p50", r.latency.p50, "p99", r.latency.p99, "non2xx", r.non2xx);
child.kill("SIGINT");
await new Promise((r) => child.on("exit", r));
await db.drop();
