import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fileURLToPath } from "node:url";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, incidents } from "@posture/db";
import { readUntrustedBlock } from "@posture/mcp";
import { routeCatalog } from "@posture/platform";
import { appRouter } from "../../router";
import { useTestGateway } from "../../testing";
import { errorCode, freshIp } from "../helpers";

// Issue 32, part 1: a `read`-scoped key reads and is refused every write (403
// insufficient_scope) over REST, /trpc and MCP alike; a key created without scopes keeps its
// owner's full role.

const gw = useTestGateway();

let owner: { orgId: string; key: string; cookie: string };
let readKey: string;
let findingId: string;
let findingsTotal: number;

beforeAll(async () => {
  owner = await gw.createActor({ plan: "business" });
  const as = { cookie: owner.cookie, ip: freshIp() };
  const created = await gw.request("POST", "/api/keys", { ...as, body: { name: "siem", scopes: ["read"] } });
  expect(created.status, created.text).toBe(201);
  expect((created.body as { scopes: unknown }).scopes).toEqual(["read"]);
  readKey = (created.body as { key: string }).key;
  const connector = await gw.request("POST", "/api/connectors", {
    ...as,
    body: { type: "google_workspace", displayName: "Demo", mode: "demo", demo: { files: 40 } },
  });
  expect(connector.status, connector.text).toBe(201);
  const scan = await gw.request("POST", `/api/connectors/${(connector.body as { id: string }).id}/sync`, as);
  expect(scan.status, scan.text).toBe(200);
  const all = await gw.request("GET", "/api/findings?limit=5", as);
  const page = all.body as { findings: Array<{ id: string }>; total: number };
  findingsTotal = page.total;
  findingId = page.findings[0]?.id ?? "";
  expect(findingId).not.toBe("");
}, 120_000);

const asRead = () => ({ key: readKey, ip: freshIp() });

describe("key metadata", () => {
  it("lists scopes: the read key's, and null for an unscoped key", async () => {
    const res = await gw.request("GET", "/api/keys", { cookie: owner.cookie, ip: freshIp() });
    expect(res.status).toBe(200);
    const keys = (res.body as { keys: Array<{ name: string; scopes: unknown }> }).keys;
    expect(keys.map((k) => [k.name, k.scopes]).sort()).toEqual([
      ["siem", ["read"]],
      ["test", null],
    ]);
  });

  it("refuses unknown or empty scopes with 400 invalid_input", async () => {
    for (const scopes of [["admin"], [], ["read", "sudo"], "read"]) {
      const res = await gw.request("POST", "/api/keys", {
        cookie: owner.cookie,
        ip: freshIp(),
        body: { name: "bad", scopes },
      });
      expect(res.status, JSON.stringify(scopes)).toBe(400);
      expect(errorCode(res)).toBe("invalid_input");
    }
  });

  it("stores write as the whole role: the key is created and listed as [write]", async () => {
    const res = await gw.request("POST", "/api/keys", {
      cookie: owner.cookie,
      ip: freshIp(),
      body: { name: "writer", scopes: ["write", "read"] },
    });
    expect(res.status).toBe(201);
    expect((res.body as { scopes: unknown }).scopes).toEqual(["write"]);
    const created = await gw.request("POST", "/api/incidents", {
      key: (res.body as { key: string }).key,
      ip: freshIp(),
      body: { title: "Written by a write key", priority: "P3" },
    });
    expect(created.status, created.text).toBe(201);
  });
});

describe("a read key over REST", () => {
  it("reads findings as its owner does", async () => {
    // Twice: the second answer comes from the credential cache, which keeps the scopes.
    for (let i = 0; i < 2; i++) {
      const list = await gw.request("GET", "/api/findings?limit=5", asRead());
      expect(list.status, list.text).toBe(200);
      expect((list.body as { total: number }).total).toBe(findingsTotal);
    }
    const one = await gw.request("GET", `/api/findings/${findingId}`, asRead());
    expect(one.status).toBe(200);
    expect((one.body as { id: string }).id).toBe(findingId);
  });

  it("is refused writes with 403 insufficient_scope, and nothing is written", async () => {
    const writes: Array<[string, string, unknown]> = [
      ["POST", "/api/incidents", { title: "Not allowed", priority: "P2" }],
      ["POST", "/api/remediations", {}],
      ["PATCH", "/api/remediation-settings", {}],
      ["POST", `/api/findings/${findingId}/ticket`, {}],
      ["POST", "/api/posture/simulate", { findingIds: [findingId] }],
      ["POST", "/api/keys", { name: "escalate" }],
    ];
    for (const [method, path, body] of writes) {
      const res = await gw.request(method, path, { ...asRead(), body });
      expect([res.status, errorCode(res)], `${method} ${path}`).toEqual([403, "insufficient_scope"]);
      expect((res.body as { requiredScope?: unknown }).requiredScope).toBe("write");
    }
    const rows = await gw.db.db
      .select({ id: incidents.id })
      .from(incidents)
      .where(and(eq(incidents.orgId, owner.orgId), eq(incidents.title, "Not allowed")));
    expect(rows).toEqual([]);
  });

  it("leaves a key created without scopes its full role", async () => {
    const res = await gw.request("POST", "/api/incidents", {
      key: owner.key,
      ip: freshIp(),
      body: { title: "Written by an unscoped key", priority: "P3" },
    });
    expect(res.status, res.text).toBe(201);
  });
});

describe("a read key over /trpc", () => {
  it("runs queries and is refused mutations", async () => {
    const input = encodeURIComponent(JSON.stringify({ limit: 5 }));
    const query = await gw.request("GET", `/trpc/findings.list?input=${input}`, asRead());
    expect(query.status, query.text).toBe(200);
    expect((query.body as { result: { data: { total: number } } }).result.data.total).toBe(findingsTotal);

    const mutation = await gw.request("POST", "/trpc/incidents.create", {
      ...asRead(),
      body: { title: "Not allowed over trpc", priority: "P2" },
    });
    expect(mutation.status).toBe(403);
    const data = (mutation.body as { error: { data: { error: string; httpStatus: number } } }).error.data;
    expect([data.error, data.httpStatus]).toEqual(["insufficient_scope", 403]);

    const unscoped = await gw.request("POST", "/trpc/incidents.create", {
      key: owner.key,
      ip: freshIp(),
      body: { title: "Allowed over trpc", priority: "P4" },
    });
    // The procedure's success status (201) holds on /trpc too.
    expect(unscoped.status, unscoped.text).toBe(201);
  });
});

async function mcpClient(key: string) {
  const client = new Client({ name: "scope-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => {
      const headers = new Headers(init?.headers);
      headers.set("x-forwarded-for", freshIp());
      return fetch(url, { ...init, headers });
    },
  });
  await client.connect(transport);
  return client;
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe("a read key over MCP (HTTP)", () => {
  it("lists only read tools, reads, and is refused a write tool", async () => {
    const full = await mcpClient(owner.key);
    const read = await mcpClient(readKey);
    try {
      const fullNames = (await full.listTools()).tools.map((t) => t.name);
      const readTools = (await read.listTools()).tools;
      const readNames = readTools.map((t) => t.name);
      const writeTools = ["partner_actions_create", "posture_simulate", "remediations_create"];
      for (const name of writeTools) expect(fullNames).toContain(name);
      // Exactly the unscoped list without its mutations.
      expect(readNames).toEqual(fullNames.filter((n) => !writeTools.includes(n)));
      for (const t of readTools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);

      const page = await read.callTool({ name: "findings_list", arguments: { limit: 5 } });
      expect(page.isError, text(page)).toBeFalsy();
      expect((readUntrustedBlock(text(page)) as { total: number }).total).toBe(findingsTotal);

      const refused = await read.callTool({ name: "remediations_create", arguments: {} });
      expect(refused.isError).toBe(true);
      expect(text(refused).split("\n")[0]).toBe("403 insufficient_scope");
      const simulate = await read.callTool({
        name: "posture_simulate",
        arguments: { findingIds: [findingId] },
      });
      expect(text(simulate).split("\n")[0]).toBe("403 insufficient_scope");
    } finally {
      await Promise.all([full.close(), read.close()]);
    }
  });
});

const MCP_DIR = fileURLToPath(new URL("../../../../mcp/", import.meta.url));

/** `pnpm mcp`'s entry point on stdio, against the started gateway, as this key. */
async function stdioClient(key: string) {
  const client = new Client({ name: "stdio-scope-client", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", fileURLToPath(new URL("src/main.ts", `file://${MCP_DIR}`))],
    cwd: MCP_DIR,
    env: { ...(process.env as Record<string, string>), SERVICE_URL: gw.url, SERVICE_API_KEY: key },
    stderr: "pipe",
  });
  await client.connect(transport);
  return client;
}

describe("GET /api/keys/current", () => {
  it("names the calling key and its scopes; a session has none (404)", async () => {
    const read = await gw.request("GET", "/api/keys/current", asRead());
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ name: "siem", scopes: ["read"], status: "active" });
    expect((read.body as { keyPrefix: string }).keyPrefix).toBe(
      readKey.slice(0, (read.body as { keyPrefix: string }).keyPrefix.length),
    );
    const full = await gw.request("GET", "/api/keys/current", { key: owner.key, ip: freshIp() });
    expect(full.body).toMatchObject({ scopes: null });
    const session = await gw.request("GET", "/api/keys/current", { cookie: owner.cookie, ip: freshIp() });
    expect(session.status).toBe(404);
  });
});

describe("a read key over MCP (stdio, `pnpm mcp`)", () => {
  it("lists only the tools the key's scopes allow, as /mcp does, and is refused a write", async () => {
    const [full, read, http] = await Promise.all([
      stdioClient(owner.key),
      stdioClient(readKey),
      mcpClient(readKey),
    ]);
    try {
      const fullNames = (await full.listTools()).tools.map((t) => t.name);
      const readTools = (await read.listTools()).tools;
      const readNames = readTools.map((t) => t.name);
      for (const name of ["partner_actions_create", "posture_simulate", "remediations_create"]) {
        expect(fullNames).toContain(name);
        expect(readNames).not.toContain(name);
      }
      expect(readNames).toEqual((await http.listTools()).tools.map((t) => t.name));
      for (const t of readTools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      const page = await read.callTool({ name: "findings_list", arguments: { limit: 5 } });
      expect((readUntrustedBlock(text(page)) as { total: number }).total).toBe(findingsTotal);
      const refused = await read.callTool({ name: "remediations_create", arguments: {} });
      expect(text(refused).split("\n")[0]).toBe("403 insufficient_scope");
    } finally {
      await Promise.all([full.close(), read.close(), http.close()]);
    }
  }, 60_000);
});

describe("every non-GET REST route", () => {
  const writes = routeCatalog(appRouter).rest.flatMap(({ rest }) => {
    if (rest.method === "GET") return [];
    return [{ method: rest.method, path: `/api${rest.path.replace(/\{[^}]+\}/g, "scope_dummy_id")}` }];
  });

  it("answers a read key 403 insufficient_scope, and writes no audit row", async () => {
    // Every write of the router (53 with the AI-exposure merge: the sandbox scenario kinds and the
    // exposure reads add none; sign-in's organization choice none; a new POST one; 54 with the
    // exposure settings PATCH; 56 with issue 32's one ticket for a quick-win group and one for an
    // incident: POST /posture/quick-wins/{group}/ticket, POST /incidents/{id}/ticket).
    expect(writes.length).toBe(56);
    const before = await gw.db.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(eq(auditLog.orgId, owner.orgId));
    const mismatches: string[] = [];
    for (const { method, path } of writes) {
      const withBody = ["POST", "PATCH", "PUT"].includes(method);
      const res = await gw.request(method, path, { ...asRead(), ...(withBody ? { body: {} } : {}) });
      if (res.status !== 403 || errorCode(res) !== "insufficient_scope")
        mismatches.push(`${method} ${path}: ${res.status} ${String(errorCode(res))}`);
    }
    expect(mismatches).toEqual([]);
    const after = await gw.db.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(eq(auditLog.orgId, owner.orgId));
    expect(after.length).toBe(before.length);
  });
});
