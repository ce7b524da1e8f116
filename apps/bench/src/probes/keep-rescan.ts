// Rescans on a kept organization (issue 15): builds a sized demo organization once in a database
// that outlives the run, then times single syncs against it over HTTP, each on a fresh gateway
// production build (in-process jobs) whose info log goes to /tmp/rescan-keep-gateway.log. Prints
// the sync's wall time, the gateway's CPU and the database backends' CPU (from /proc).
//   tsx src/probes/keep-rescan.ts seed <files>            (KEEP_DB, KEEP_STATE name the database and state file)
//   tsx src/probes/keep-rescan.ts sync '<json body>' [label]
//   tsx src/probes/keep-rescan.ts drop
// BENCH_NODE_ARGS adds flags to the gateway (e.g. --cpu-prof); KEEP_SETTLE waits out the
// behaviour refresh before the gateway stops.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { openSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createApiKeyFor, createOrganization, createUser } from "@posture/account";
import { bundle } from "@posture/build";
import { createDb } from "@posture/db";
import { deriveAuditKey, setAuditKey } from "@posture/platform";
import { freePort } from "../lib/child";

const STATE = process.env.KEEP_STATE ?? "/tmp/rescan-keep.json";
const DBNAME = process.env.KEEP_DB ?? "rescan_keep_1m";
const ADMIN = "postgres://postgres@127.0.0.1:5432/postgres";
const GATEWAY_DIR = new URL("../../../gateway/", import.meta.url);
type TState = { url: string; email: string; password: string; connectorId?: string; key: string };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function procCpuMs(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}
async function pgCpuMs(admin: pg.Client): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1", [
    DBNAME,
  ]);
  const m = new Map<number, number>();
  for (const r of rows) m.set(r.pid, await procCpuMs(r.pid));
  return m;
}

async function startGateway(state: TState, logFile: string) {
  await bundle({ appDir: fileURLToPath(GATEWAY_DIR), entries: ["src/main.ts"], ifStale: true, quiet: true });
  const port = await freePort();
  const out = openSync(logFile, "a");
  const extra = process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, fileURLToPath(new URL("dist/main.js", GATEWAY_DIR))], {
    cwd: fileURLToPath(GATEWAY_DIR),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: state.url,
      REDIS_URL: undefined,
      TRUST_PROXY: "loopback",
      COOKIE_SECURE: "false",
      ENCRYPTION_KEY: state.key,
      LOG_LEVEL: process.env.KEEP_LOG_LEVEL ?? "info",
      NODE_ENV: "production",
      GATEWAY_WORKERS: "1",
    },
    stdio: ["ignore", out, out],
  });
  const url = `http://127.0.0.1:${port}`;
  const pid = child.pid ?? -1;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      /* not yet */
    }
    await sleep(100);
  }
  return { url, child, pid };
}

async function signedIn(url: string, state: TState) {
  const r = await fetch(`${url}/api/auth/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: state.email, password: state.password }),
  });
  if (!r.ok) throw new Error(`sign-in ${r.status}`);
  return r.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

type TScan = {
  scanId: string;
  status: string;
  kind?: string;
  findingsNew: number;
  findingsResolved: number;
  postureScore: number;
  resources: number;
};

async function call<T>(
  url: string,
  method: string,
  path: string,
  cookie: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status === 429) {
    await sleep(1000 * Math.max(1, Number(res.headers.get("retry-after") ?? "1")));
    return call<T>(url, method, path, cookie, body);
  }
  if (res.status >= 400) throw new Error(`${method} ${path} ${res.status} ${text.slice(0, 400)}`);
  return (text ? JSON.parse(text) : null) as T;
}

async function sync(url: string, cookie: string, connectorId: string, body: unknown) {
  const started = performance.now();
  let scan = await call<TScan>(url, "POST", `/api/connectors/${connectorId}/sync`, cookie, body);
  while (scan.status === "QUEUED" || scan.status === "RUNNING") {
    await sleep(250);
    scan = await call<TScan>(url, "GET", `/api/connectors/${connectorId}/scans/${scan.scanId}`, cookie);
  }
  return { ms: Math.round(performance.now() - started), scan };
}

async function settle(pid: number) {
  let last = await procCpuMs(pid);
  let quiet = 0;
  while (quiet < 2) {
    await sleep(1000);
    const now = await procCpuMs(pid);
    quiet = now - last < 30 ? quiet + 1 : 0;
    last = now;
  }
}

const [mode, arg, label] = process.argv.slice(2);
setAuditKey(deriveAuditKey(randomBytes(32)));
const admin = new pg.Client({ connectionString: ADMIN });
await admin.connect();
if (mode === "seed") {
  await admin.query(`CREATE DATABASE "${DBNAME}"`);
  const u = new URL(ADMIN);
  u.pathname = `/${DBNAME}`;
  const handle = createDb({ databaseUrl: u.toString(), poolSize: 2 });
  await handle.migrate();
  const org = await createOrganization(handle.db, { name: "Keep", plan: "enterprise" });
  const password = randomBytes(12).toString("hex");
  const user = await createUser(handle.db, {
    orgId: org.id,
    email: "keep@example.test",
    password,
    role: "OWNER",
  });
  await createApiKeyFor(handle.db, { orgId: org.id, userId: user.id, name: "bench" });
  await handle.close();
  const state: TState = {
    url: u.toString(),
    email: user.email,
    password,
    key: randomBytes(32).toString("hex"),
  };
  writeFileSync(STATE, JSON.stringify(state));
  const g = await startGateway(state, "/tmp/rescan-keep-gateway.log");
  try {
    const cookie = await signedIn(g.url, state);
    const created = await call<{ id: string }>(g.url, "POST", "/api/connectors", cookie, {
      type: "google_workspace",
      displayName: "Keep",
      mode: "demo",
      demo: { files: Number(arg ?? "1000000") },
    });
    state.connectorId = created.id;
    writeFileSync(STATE, JSON.stringify(state));
    const r = await sync(g.url, cookie, created.id, {});
    console.log(JSON.stringify({ label: "first", ms: r.ms, scan: r.scan }));
    await settle(g.pid);
  } finally {
    g.child.kill("SIGTERM");
  }
} else if (mode === "sync") {
  const state = JSON.parse(readFileSync(STATE, "utf8")) as TState;
  const g = await startGateway(state, "/tmp/rescan-keep-gateway.log");
  try {
    const cookie = await signedIn(g.url, state);
    await settle(g.pid);
    const gw0 = await procCpuMs(g.pid);
    const pg0 = await pgCpuMs(admin);
    if (!state.connectorId) throw new Error("no connector: run seed first");
    const r = await sync(g.url, cookie, state.connectorId, JSON.parse(arg ?? "{}"));
    const gw1 = await procCpuMs(g.pid);
    const pg1 = await pgCpuMs(admin);
    let pgMs = 0;
    for (const [pid, v] of pg1) pgMs += v - (pg0.get(pid) ?? 0);
    console.log(
      JSON.stringify({
        label: label ?? arg,
        ms: r.ms,
        gatewayCpuMs: gw1 - gw0,
        pgCpuMs: pgMs,
        kind: r.scan.kind,
        new: r.scan.findingsNew,
        resolved: r.scan.findingsResolved,
        score: r.scan.postureScore,
        resources: r.scan.resources,
      }),
    );
    if (process.env.KEEP_SETTLE) await settle(g.pid);
  } finally {
    g.child.kill("SIGTERM");
    await sleep(500);
  }
} else if (mode === "drop") {
  await admin.query(`DROP DATABASE IF EXISTS "${DBNAME}" WITH (FORCE)`);
}
await admin.end();
