import { describe, expect, it } from "vitest";
import { collect } from "../../../fakes/src/adapter-harness";
import type { TAppGrant } from "../types";
import { createDemoAdapter } from "./index";

// Both demo tenants carry registry agents (issue 30): each app's access kind and agent source are
// the same in every grant of it and in every read of the same seed.

const NOW = new Date("2025-06-01T12:00:00.000Z");

const byApp = (grants: TAppGrant[]) => {
  const apps = new Map<string, { label: string; kind: string; access: string; agentSource: string | null }>();
  for (const g of grants) {
    const card = {
      label: g.label,
      kind: g.kind,
      access: g.access ?? "delegated",
      agentSource: g.agentSource ?? null,
    };
    const known = apps.get(g.clientId);
    if (known) expect(card).toEqual(known);
    apps.set(g.clientId, card);
  }
  return [...apps.values()];
};

const fixed = (apps: ReturnType<typeof byApp>, labels: string[]) =>
  labels.map((label) => {
    const app = apps.find((a) => a.label === label);
    return app ? [app.label, app.kind, app.access, app.agentSource] : [label, "missing"];
  });

describe("the demo tenants' agents", () => {
  it("Microsoft 365: a Copilot catalog agent, an app-only agent identity, a delegated blueprint agent", async () => {
    const opts = { seed: "agents-ms", type: "microsoft_365" as const, fileCount: 400, epoch: NOW };
    const apps = byApp(await collect(createDemoAdapter(opts).appGrants()));
    expect(
      fixed(apps, [
        "DocuMind Copilot",
        "Tenant LLM Connector",
        "MeetingScribe AI",
        "Notely AI Assistant",
        "InboxGPT",
        "Chatterbox",
      ]),
    ).toEqual([
      ["DocuMind Copilot", "ai_agent", "delegated", "copilot_catalog"],
      ["Tenant LLM Connector", "ai_agent", "application", "agent_registry"],
      ["MeetingScribe AI", "ai_agent", "delegated", "agent_registry"],
      ["Notely AI Assistant", "ai_agent", "delegated", "publisher_catalog"],
      ["InboxGPT", "ai_agent", "delegated", "publisher_catalog"],
      ["Chatterbox", "oauth_app", "delegated", null],
    ]);
    // Every agent has a source; service accounts act as themselves.
    expect(apps.filter((a) => a.kind === "ai_agent" && !a.agentSource)).toEqual([]);
    expect(apps.filter((a) => a.kind === "service_account").map((a) => a.access)).toEqual([
      "application",
      "application",
      "application",
    ]);
    const again = byApp(await collect(createDemoAdapter(opts).appGrants()));
    expect(again).toEqual(apps);
  });

  it("Google Workspace: catalog agents by client id, one with domain-wide delegation", async () => {
    const opts = { seed: "agents-g", type: "google_workspace" as const, fileCount: 400, epoch: NOW };
    const apps = byApp(await collect(createDemoAdapter(opts).appGrants()));
    expect(
      fixed(apps, ["DocuMind Copilot", "Workspace LLM Connector", "MeetingScribe AI", "BackupBox"]),
    ).toEqual([
      ["DocuMind Copilot", "ai_agent", "delegated", "publisher_catalog"],
      ["Workspace LLM Connector", "ai_agent", "application", "publisher_catalog"],
      ["MeetingScribe AI", "ai_agent", "delegated", "publisher_catalog"],
      ["BackupBox", "oauth_app", "delegated", null],
    ]);
    expect(apps.filter((a) => a.kind === "ai_agent" && !a.agentSource)).toEqual([]);
    expect(new Set(apps.filter((a) => a.kind === "service_account").map((a) => a.access))).toEqual(
      new Set(["application"]),
    );
  });
});
