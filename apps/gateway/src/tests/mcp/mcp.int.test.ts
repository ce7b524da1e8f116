import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, organizations } from "@posture/db";
import { readUntrustedBlock } from "@posture/mcp";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";

// Issue 16's MCP "done when": an MCP client (the SDK's own) lists the tools and calls them over
// stdio (`pnpm mcp`'s entry point against a started gateway) and over Streamable HTTP at /mcp,
// as one API key; a member's key sees only what a member may; the one planning write creates a
// PLANNED remediation whose audit row names the MCP client.

const MAIN = fileURLToPath(new URL("../../../../mcp/src/main.ts", import.meta.url));
const MCP_DIR = fileURLToPath(new URL("../../../../mcp/", import.meta.url));

type TQuickWin = { action: string; findingIds: string[]; plan?: Record<string, unknown> };

const gw = useTestGateway();

let owner: { orgId: string; key: string; cookie: string };
let memberKey: string;
let win: TQuickWin;

beforeAll(async () => {
  owner = await gw.createActor({ plan: "business" });
  const member = await gw.createUser(owner.orgId, "member");
  memberKey = (await gw.createApiKey(owner.orgId, member.id)).key;
  const as = { cookie: owner.cookie, ip: freshIp() };
  const connector = await gw.request("POST", "/api/connectors", {
    ...as,
    body: { type: "google_workspace", displayName: "Demo", mode: "demo", demo: { files: 300 } },
  });
  expect(connector.status, connector.text).toBe(201);
  const scan = await gw.request("POST", `/api/connectors/${(connector.body as { id: string }).id}/sync`, as);
  expect(scan.status, scan.text).toBe(200);
  const breakdown = await gw.request("GET", "/api/posture/breakdown", as);
  const wins = (breakdown.body as { quickWins: TQuickWin[] }).quickWins;
  const found = wins.find((w) => w.plan !== undefined);
  expect(found, breakdown.text).toBeDefined();
  win = found as TQuickWin;
}, 120_000);

/** An MCP client over HTTP at /mcp; each request from its own address (the 60/min budget). */
async function httpClient(key: string, name = "http-test-client") {
  const client = new Client({ name, version: "2.3.4" });
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

async function stdioClient(key: string) {
  const client = new Client({ name: "stdio-test-client", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", MAIN],
    cwd: MCP_DIR,
    env: { ...(process.env as Record<string, string>), SERVICE_URL: gw.url, SERVICE_API_KEY: key },
    stderr: "pipe",
  });
  await client.connect(transport);
  return client;
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
const json = (r: unknown) => readUntrustedBlock(text(r)) as Record<string, unknown>;

async function callFive(client: Client) {
  const listed = await client.listTools();
  const names = listed.tools.map((t) => t.name);
  // Generated from the routers' meta: reads of the areas, the two planning writes, nothing else.
  expect(names).toEqual(
    expect.arrayContaining([
      "findings_list",
      "findings_get",
      "timeline_list",
      "incidents_list",
      "behavior_anomalies_list",
      "compliance_dashboard_get",
      "remediations_create",
      "posture_simulate",
    ]),
  );
  for (const never of [
    "remediations_approve",
    "remediations_applyPlan",
    "remediations_undo",
    "keys_create",
    "webhooks_create",
    "connectors_delete",
    "incidents_create",
    "findings_ticket_create",
  ])
    expect(names).not.toContain(never);
  for (const t of listed.tools) {
    expect(t.inputSchema.type).toBe("object");
    const writes = t.name === "remediations_create" || t.name === "partner_actions_create";
    expect(t.annotations?.readOnlyHint, t.name).toBe(!writes);
  }

  const page = json(await client.callTool({ name: "findings_list", arguments: { limit: 5 } }));
  const findings = page.findings as Array<{ id: string }>;
  expect(findings.length).toBe(5);
  expect(page.total).toBeGreaterThan(5);
  const one = json(await client.callTool({ name: "findings_get", arguments: { id: findings[0]?.id } }));
  expect(one.id).toBe(findings[0]?.id);
  const timeline = json(await client.callTool({ name: "timeline_list", arguments: { limit: 3 } }));
  expect((timeline.items as unknown[]).length).toBeGreaterThan(0);
  const incidents = json(await client.callTool({ name: "incidents_list", arguments: {} }));
  expect(incidents).toBeTypeOf("object");
  const dashboard = json(await client.callTool({ name: "compliance_dashboard_get", arguments: {} }));
  expect(dashboard).toBeTypeOf("object");
  const simulated = json(
    await client.callTool({ name: "posture_simulate", arguments: { findingIds: win.findingIds } }),
  );
  expect(simulated.scoreDelta).toBeGreaterThan(0);

  // Bad input is the service's own 400, as an error result.
  const bad = await client.callTool({ name: "findings_list", arguments: { limit: "lots" } });
  expect(bad.isError).toBe(true);
  expect(text(bad)).toContain("invalid_input");
  return names;
}

async function planAndAudit(client: Client, label: string) {
  const created = await client.callTool({ name: "remediations_create", arguments: win.plan ?? {} });
  expect(created.isError, text(created)).toBeFalsy();
  const plan = json(created);
  expect(plan.status).toBe("PLANNED");
  const [row] = await gw.db.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.orgId, owner.orgId), eq(auditLog.target, plan.id as string)));
  expect(row?.action).toBe("REMEDIATION_PLANNED");
  expect(row?.metadata.client).toBe(label);
  // Nothing was applied: the plan stays PLANNED until a person approves it.
  const detail = await gw.request("GET", `/api/remediations/${plan.id as string}`, {
    key: owner.key,
    ip: freshIp(),
  });
  expect((detail.body as { status: string }).status).toBe("PLANNED");
}

describe("MCP over Streamable HTTP at /mcp", () => {
  it("lists the tools, calls them, plans, and the audit names the client", async () => {
    const client = await httpClient(owner.key);
    try {
      await callFive(client);
      await planAndAudit(client, "mcp:http-test-client/2.3.4");
    } finally {
      await client.close();
    }
  });

  it("serves reports as resources: the gap report PDF as a base64 blob", async () => {
    const client = await httpClient(owner.key);
    try {
      const templates = await client.listResourceTemplates();
      const uris = templates.resourceTemplates.map((t) => t.uriTemplate);
      expect(uris).toEqual(
        expect.arrayContaining([
          "posture://compliance/gap-report{?period}",
          "posture://incidents/{id}/export",
        ]),
      );
      const listed = await client.listResources();
      expect(listed.resources.map((r) => r.uri)).toContain("posture://compliance/gap-report");
      const read = await client.readResource({ uri: "posture://compliance/gap-report?period=30" });
      const content = read.contents[0] as { mimeType: string; blob: string };
      expect(content.mimeType).toBe("application/pdf");
      expect(Buffer.from(content.blob, "base64").subarray(0, 5).toString()).toBe("%PDF-");
    } finally {
      await client.close();
    }
  });

  it("a member's key gets what a member may: reads, but planning is forbidden", async () => {
    const client = await httpClient(memberKey);
    try {
      const page = json(await client.callTool({ name: "findings_list", arguments: { limit: 1 } }));
      expect((page.findings as unknown[]).length).toBe(1);
      const denied = await client.callTool({ name: "remediations_create", arguments: win.plan ?? {} });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain("403 forbidden");
    } finally {
      await client.close();
    }
  });

  it("refuses a missing or invalid key with the contract's 401, and GET with 405", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const headers = { accept: "application/json, text/event-stream" };
    const none = await gw.request("POST", "/mcp", { body: init, headers, ip: freshIp() });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: "unauthenticated" });
    const wrong = await gw.request("POST", "/mcp", {
      body: init,
      headers,
      key: `svc_ak_${"0".repeat(40)}`,
      ip: freshIp(),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: "unauthenticated" });
    const cookie = await gw.request("POST", "/mcp", {
      body: init,
      headers,
      cookie: owner.cookie,
      ip: freshIp(),
    });
    expect(cookie.status).toBe(401);
    const get = await gw.request("GET", "/mcp", { key: owner.key, ip: freshIp() });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, DELETE");
  });

  it("a key of an organization without API access gets 402 on every request", async () => {
    const starter = await gw.createActor({ plan: "starter" });
    await expect(httpClient(starter.key)).rejects.toThrow(/402|plan_upgrade_required/);
  });
});

describe("the declared client in the audit trail (X-Service-Client)", () => {
  const plan = async (headers: Record<string, string>) => {
    const res = await gw.request("POST", "/api/remediations", {
      key: owner.key,
      ip: freshIp(),
      body: win.plan ?? {},
      headers,
    });
    expect(res.status, res.text).toBe(201);
    const [row] = await gw.db.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.orgId, owner.orgId), eq(auditLog.target, (res.body as { id: string }).id)));
    return row?.metadata;
  };

  it("records a well-formed declaration and drops anything else", async () => {
    expect((await plan({ "x-service-client": "sdk:posture-sdk/0.1.0" }))?.client).toBe(
      "sdk:posture-sdk/0.1.0",
    );
    expect(await plan({})).not.toHaveProperty("client");
    expect(await plan({ "x-service-client": "x".repeat(121) })).not.toHaveProperty("client");
    expect(await plan({ "x-service-client": "mcp:caf\u00e9/1" })).not.toHaveProperty("client");
  });
});

describe("MCP on stdio (`pnpm mcp`)", () => {
  it("lists the tools, calls them, plans, and the audit names the client", async () => {
    const client = await stdioClient(owner.key);
    try {
      await callFive(client);
      await planAndAudit(client, "mcp:stdio-test-client/1.0.0");
      const member = await stdioClient(memberKey);
      try {
        const denied = await member.callTool({ name: "remediations_create", arguments: win.plan ?? {} });
        expect(denied.isError).toBe(true);
        expect(text(denied)).toContain("403 forbidden");
      } finally {
        await member.close();
      }
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("MCP as a partner's key", () => {
  it("reads a managed client's findings, agents and sharing; another organization is 404", async () => {
    const msp = await gw.createActor({ plan: "enterprise", isPartner: true });
    // The scanned organization above becomes the partner's client (its consent follows).
    await gw.db.db
      .update(organizations)
      .set({ managedByOrgId: msp.orgId })
      .where(eq(organizations.id, owner.orgId));
    const stranger = await gw.createActor({ plan: "business" });
    const client = await httpClient(msp.key, "partner-client");
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "partner_clients_findings_list",
          "partner_clients_agents_list",
          "partner_clients_sharing_overview_get",
          "partner_campaigns_list",
          "partner_actions_create",
        ]),
      );
      const page = json(
        await client.callTool({
          name: "partner_clients_findings_list",
          arguments: { orgId: owner.orgId, limit: 5 },
        }),
      );
      expect((page.findings as unknown[]).length).toBe(5);
      const agents = json(
        await client.callTool({ name: "partner_clients_agents_list", arguments: { orgId: owner.orgId } }),
      );
      expect((agents.agents as unknown[]).length).toBeGreaterThan(0);
      const sharing = await client.callTool({
        name: "partner_clients_sharing_overview_get",
        arguments: { orgId: owner.orgId },
      });
      expect(sharing.isError, text(sharing)).toBeFalsy();
      const foreign = await client.callTool({
        name: "partner_clients_findings_list",
        arguments: { orgId: stranger.orgId },
      });
      expect(foreign.isError).toBe(true);
      expect(text(foreign)).toContain("404 not_found");
    } finally {
      await client.close();
      await gw.db.db
        .update(organizations)
        .set({ managedByOrgId: null })
        .where(eq(organizations.id, owner.orgId));
    }
  }, 60_000);
});
