import { describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { freshIp } from "../helpers";
import { body, client } from "./harness";

// Issue 30: the agent inventory names each app's access kind and why it is an agent (a platform
// registry or the maintained publisher catalog), as the demo tenants' registries say.

type TCard = { label: string; kind: string; access: string; agentSource: string | null; clientId: string };

const gw = useTestGateway();

async function scanned(type: "microsoft_365" | "google_workspace") {
  const actor = await gw.createActor({ plan: "business", role: "OWNER" });
  const c = client(gw, actor.cookie);
  const created = await c.post("/api/connectors", {
    type,
    displayName: `Demo ${type}`,
    mode: "demo",
    config: { fileCount: 300 },
  });
  expect(created.status).toBe(201);
  const scan = await c.post(`/api/connectors/${(created.body as { id: string }).id}/sync`, undefined);
  expect((scan.body as { status: string }).status).toBe("COMPLETE");
  return c;
}

const cards = (agents: TCard[], labels: string[]) =>
  labels.map((label) => {
    const a = agents.find((x) => x.label === label);
    return a ? [a.label, a.kind, a.access, a.agentSource] : [label, "missing"];
  });

describe("GET /api/agent-guard/inventory: registry agents and their access", () => {
  it("shows a Microsoft 365 tenant's Copilot catalog agent, app-only agent identity and delegated agents", async () => {
    const c = await scanned("microsoft_365");
    const res = await c.get("/api/agent-guard/inventory");
    expect(res.status).toBe(200);
    const { agents, metrics } = body<{ agents: TCard[]; metrics: { aiAgents: number } }>(res);
    expect(
      cards(agents, [
        "DocuMind Copilot",
        "Tenant LLM Connector",
        "MeetingScribe AI",
        "Notely AI Assistant",
        "Chatterbox",
      ]),
    ).toEqual([
      ["DocuMind Copilot", "ai_agent", "delegated", "copilot_catalog"],
      ["Tenant LLM Connector", "ai_agent", "application", "agent_registry"],
      ["MeetingScribe AI", "ai_agent", "delegated", "agent_registry"],
      ["Notely AI Assistant", "ai_agent", "delegated", "publisher_catalog"],
      ["Chatterbox", "oauth_app", "delegated", null],
    ]);
    // Every agent says where it comes from; no other card claims a source.
    expect(agents.filter((a) => a.kind === "ai_agent" && a.agentSource === null)).toEqual([]);
    expect(agents.filter((a) => a.kind !== "ai_agent" && a.agentSource !== null)).toEqual([]);
    expect(metrics.aiAgents).toBe(agents.filter((a) => a.kind === "ai_agent").length);
    // Service accounts act as themselves.
    for (const a of agents.filter((x) => x.kind === "service_account")) expect(a.access).toBe("application");
  });

  it("shows a Google tenant's domain-wide-delegated agent as application access", async () => {
    const c = await scanned("google_workspace");
    const { agents } = body<{ agents: TCard[] }>(await c.get("/api/agent-guard/inventory"));
    expect(cards(agents, ["Workspace LLM Connector", "DocuMind Copilot", "BackupBox"])).toEqual([
      ["Workspace LLM Connector", "ai_agent", "application", "publisher_catalog"],
      ["DocuMind Copilot", "ai_agent", "delegated", "publisher_catalog"],
      ["BackupBox", "oauth_app", "delegated", null],
    ]);
  });

  it("describes both fields in the OpenAPI document", async () => {
    const res = await gw.request("GET", "/api/openapi.json", { ip: freshIp() });
    const text = JSON.stringify(res.body);
    const doc = res.body as {
      paths: Record<
        string,
        { get?: { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> } }
      >;
    };
    const schema = JSON.stringify(doc.paths["/agent-guard/inventory"]?.get?.responses?.["200"]);
    expect(schema).toContain('"access"');
    expect(schema).toContain('"agentSource"');
    expect(schema).toContain("agent_registry");
    expect(text).toContain("How the app reads data: application");
  });
});
