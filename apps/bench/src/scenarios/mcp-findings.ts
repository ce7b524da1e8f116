import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { createTestDb } from "@posture/db/testing";
import { seedDemo } from "@posture/demo";
import { createLogger, parseEncryptionKey } from "@posture/platform";
import { GATEWAY_ENV_NOTE, startGatewayChild } from "../lib/gateway";
import type { TChild } from "../lib/child";
import { seedFindings, seedOwnerWithKey } from "../lib/seed";
import type { TBenchSettings, TMeasurement, TScenario } from "../types";

const FINDINGS = 20_000;
const MAX_P99_MS = 50;
const PROTOCOL = "2025-06-18";

type TLoad = { method: "GET" | "POST"; path: string; headers: Record<string, string>; body?: string };

// As lib/load.ts: each request claims its own client network, so the per-client limit is checked
// on every request without a 60-per-minute budget ending the run.
function addresses(): () => string {
  const prefix = `2001:db8:${randomBytes(2).toString("hex")}`;
  let n = 0;
  return () => {
    n += 1;
    return `${prefix}:${(n & 0xffff).toString(16)}:${((n >>> 16) & 0xffff).toString(16)}::1`;
  };
}

function run(child: TChild, load: TLoad, connections: number, durationSec: number) {
  const nextIp = addresses();
  return autocannon({
    url: child.url,
    connections,
    duration: durationSec,
    headers: load.headers,
    requests: [
      {
        method: load.method,
        path: load.path,
        ...(load.body ? { body: load.body } : {}),
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, "x-forwarded-for": nextIp() } }),
      },
    ],
  });
}

async function measure(label: string, child: TChild, load: TLoad, s: TBenchSettings): Promise<TMeasurement> {
  if (s.warmupSec > 0) await run(child, load, s.connections, s.warmupSec);
  const before = await child.cpuMs();
  const r = await run(child, load, s.connections, s.durationSec);
  const after = await child.cpuMs();
  return {
    label,
    requestsPerSec: r.requests.average,
    cpuMsPerRequest:
      before === null || after === null || r.requests.total === 0
        ? null
        : (after - before) / r.requests.total,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    rssMb: await child.rssMb(),
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

/** An MCP session at /mcp as `key`, and the findings tool call to repeat; checks one answer. */
async function findingsCall(gateway: TChild, key: string): Promise<{ call: TLoad; rows: number }> {
  const headers = {
    authorization: `Bearer ${key}`,
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": PROTOCOL,
  };
  const init = await fetch(`${gateway.url}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL,
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    }),
  });
  const session = init.headers.get("mcp-session-id");
  if (init.status !== 200 || !session)
    throw new Error(`initialize answered ${init.status}: ${await init.text()}`);
  const call: TLoad = {
    method: "POST",
    path: "/mcp",
    headers: { ...headers, "mcp-session-id": session },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "findings_list", arguments: { limit: 50 } },
    }),
  };
  const probe = await fetch(`${gateway.url}/mcp`, {
    method: "POST",
    headers: call.headers,
    body: call.body,
  });
  const answer = (await probe.json()) as {
    result?: { isError?: boolean; content: Array<{ text: string }> };
  };
  const text = answer.result?.content[0]?.text ?? "";
  if (probe.status !== 200 || answer.result?.isError) throw new Error(`tools/call answered: ${text}`);
  // The service's JSON, inside the untrusted-data block every tool result carries (docs/mcp.md).
  const json = /<untrusted-data-([0-9a-f]+)>\n(.*)\n<\/untrusted-data-\1>$/s.exec(text)?.[2] ?? "null";
  const rows = (JSON.parse(json) as { findings: unknown[] }).findings.length;
  return { call, rows };
}

const benchRuntime = () => ({
  encryptionKey: parseEncryptionKey(randomBytes(32).toString("hex")),
  publicUrl: "http://localhost",
  webhookAllowPrivateTargets: false,
});

const restLoad = (key: string): TLoad => ({
  method: "GET",
  path: "/api/findings?limit=50",
  headers: { authorization: `Bearer ${key}` },
});

/**
 * The MCP server's findings tool over Streamable HTTP at /mcp: `tools/call findings_list {limit:
 * 50}` as one API key, each call a stateless POST (fresh MCP server and transport, the access
 * middleware, the procedure through a tRPC caller), next to the same read over REST.
 */
export const mcpFindings: TScenario = {
  name: "mcp-findings",
  title: `MCP tools/call findings_list {limit: 50} over HTTP /mcp: the demo organization, and ${FINDINGS.toLocaleString("en")} findings`,
  run: async (settings) => {
    const db = await createTestDb();
    let gateway: TChild | undefined;
    try {
      // The demo organizations first (the seed only runs on an empty database), as a first start
      // leaves them; then an organization with many more findings than the demo's.
      const demo = await seedDemo({ db: db.db, runtime: benchRuntime(), log: createLogger("warn") });
      if (!demo) throw new Error("the demo seed found organizations already");
      const owner = await seedOwnerWithKey(db.db, "business");
      await seedFindings(db.db, owner.orgId, FINDINGS);
      gateway = await startGatewayChild(settings, db.url);
      const one = { ...settings, connections: 1 };
      const acme = await findingsCall(gateway, demo.seed.apiKey.key);
      const demoMcp = await measure(
        `MCP findings_list, 1 client, demo organization (${demo.seed.apiKey.orgName})`,
        gateway,
        acme.call,
        one,
      );
      const { call, rows } = await findingsCall(gateway, owner.key);
      // An assistant calls one tool at a time: the target is for that; then the runner's concurrency.
      const mcp = await measure("MCP tools/call findings_list, 1 client", gateway, call, one);
      const rest = await measure(
        "REST GET /api/findings?limit=50, 1 client",
        gateway,
        restLoad(owner.key),
        one,
      );
      const mcpN = await measure(`MCP tools/call, ${settings.connections} clients`, gateway, call, settings);
      const restN = await measure(
        `REST GET, ${settings.connections} clients`,
        gateway,
        restLoad(owner.key),
        settings,
      );
      return {
        kind: "done",
        measurements: [demoMcp, mcp, rest, mcpN, restN],
        checks: [
          {
            label: `MCP findings tool call p99 <= ${MAX_P99_MS} ms on the demo organization`,
            ok: demoMcp.p99Ms <= MAX_P99_MS && demoMcp.non2xx === 0 && demoMcp.errors === 0,
            detail: `p99 ${demoMcp.p99Ms} ms, one client calling in a loop, ${acme.rows} findings a page; ${demoMcp.non2xx} non-2xx`,
          },
          {
            label: `MCP findings tool call p99 <= ${MAX_P99_MS} ms on ${FINDINGS.toLocaleString("en")} findings`,
            ok: mcp.p99Ms <= MAX_P99_MS && mcp.non2xx === 0 && mcp.errors === 0,
            detail: `p99 ${mcp.p99Ms} ms, one client calling in a loop (REST p99 ${rest.p99Ms} ms); ${mcp.non2xx} non-2xx`,
          },
        ],
        notes: [
          GATEWAY_ENV_NOTE,
          `tool result: ${rows} findings as JSON text; each call is one stateless POST (a fresh McpServer and transport)`,
        ],
      };
    } finally {
      await gateway?.stop();
      await db.drop();
    }
  },
};
