import { randomBytes } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { TEST_POSTGRES_URL } from "@posture/db/testing";
import { deriveAuditKey, setAuditKey } from "@posture/platform";
import { scenarios } from "./scenarios";
import type { TBenchSettings, TMeasurement, TScenarioOutcome } from "./types";

const USAGE = `pnpm bench [scenario ...] [--duration s] [--warmup s] [--connections n] [--strict] [--list]
Needs PostgreSQL (TEST_DATABASE_URL, default ${TEST_POSTGRES_URL}) and Redis (REDIS_URL, default redis://127.0.0.1:6379).`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
    strict: { type: "boolean", default: false },
    list: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});

if (values.help || values.list) {
  console.log(USAGE);
  for (const s of scenarios) console.log(`  ${s.name.padEnd(20)} ${s.title}`);
  process.exit(0);
}

// Every process sets its audit key at start; scenarios that run in this one (the posture PDF
// verifies the audit chain) need it too, and so do the children they start (the evidence builder
// verifies the chain this process wrote), which inherit it through the environment. The bench's
// databases are throwaway, so a random key.
process.env.BENCH_AUDIT_HMAC_KEY = randomBytes(32).toString("hex");
setAuditKey(deriveAuditKey(Buffer.alloc(0), process.env.BENCH_AUDIT_HMAC_KEY));

const settings: TBenchSettings = {
  durationSec: Number(values.duration),
  warmupSec: Number(values.warmup),
  connections: Number(values.connections),
  databaseUrl: TEST_POSTGRES_URL,
  redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
};

const unknown = positionals.filter((p) => !scenarios.some((s) => s.name === p));
if (unknown.length > 0) {
  console.error(`unknown scenario(s): ${unknown.join(", ")}\n${USAGE}`);
  process.exit(2);
}
const selected = positionals.length > 0 ? scenarios.filter((s) => positionals.includes(s.name)) : scenarios;

const fmt = (n: number, digits = 1) => n.toFixed(digits);
function table(rows: TMeasurement[]): string {
  const head = ["server", "req/s", "CPU ms/req", "p50 ms", "p99 ms", "RSS MB", "non-2xx", "errors"];
  const body = rows.map((r) => [
    r.label,
    fmt(r.requestsPerSec, 0),
    r.cpuMsPerRequest === null ? "n/a" : fmt(r.cpuMsPerRequest, 3),
    fmt(r.p50Ms),
    fmt(r.p99Ms),
    r.rssMb === null ? "n/a" : fmt(r.rssMb),
    String(r.non2xx),
    String(r.errors),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(head), ...body.map(line)].map((l) => `  ${l}`).join("\n");
}

function print(outcome: TScenarioOutcome): boolean {
  if (outcome.kind === "skipped") {
    console.log(`  skipped: ${outcome.reason}`);
    return true;
  }
  console.log(table(outcome.measurements));
  for (const c of outcome.checks) console.log(`  ${c.ok ? "PASS" : "MISS"}  ${c.label}: ${c.detail}`);
  for (const n of outcome.notes) console.log(`  note: ${n}`);
  return outcome.checks.every((c) => c.ok);
}

console.log(
  `posture bench: ${settings.connections} connections, ${settings.warmupSec} s warm-up + ${settings.durationSec} s per server`,
);
// The load generator, both servers, PostgreSQL and Redis share these CPUs: read the numbers with them.
console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
let allMet = true;
for (const scenario of selected) {
  console.log(`\n[${scenario.name}] ${scenario.title}`);
  try {
    allMet = print(await scenario.run(settings)) && allMet;
  } catch (e) {
    console.error(`  failed: ${(e as Error).stack ?? String(e)}`);
    process.exitCode = 1;
  }
}
if (!allMet && values.strict) process.exitCode = 1;
