import { describe, expect, it } from "vitest";
import { classifyApp } from "../google/app-kind";
import data from "./catalog.json" with { type: "json" };
import { AGENT_CATALOG, matchAgentCatalog, ZAgentCatalog, type TAgentCatalogEntry } from "./catalog";

const entry = (over: Partial<TAgentCatalogEntry>): TAgentCatalogEntry => ({
  id: "test-agent",
  label: "Test agent",
  publisher: "Test Labs",
  kind: "ai_agent",
  platforms: ["google_workspace", "microsoft_365"],
  match: { clientIds: ["111-abc.apps.googleusercontent.com"] },
  source: { url: "https://example.com/agent", retrieved: "2026-12-02", says: "The test agent's own page." },
  ...over,
});

describe("the agent catalog (catalog.json)", () => {
  it("loads every entry, each with an identifier and a dated https source", () => {
    expect(AGENT_CATALOG.length).toBe(data.entries.length);
    expect(AGENT_CATALOG.map((e) => e.id)).toEqual([
      "anthropic-claude-m365",
      "openai-chatgpt-m365",
      "microsoft-dragon-copilot-apis",
    ]);
    for (const e of AGENT_CATALOG) {
      expect(e.source.url, e.id).toMatch(/^https:\/\//);
      expect(e.source.retrieved, e.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(e.source.says.length, e.id).toBeGreaterThanOrEqual(20);
      expect(Object.values(e.match).flat().length, e.id).toBeGreaterThan(0);
    }
  });

  it("refuses an entry without a source, without an identifier, or a duplicate id", () => {
    const { source: _s, ...unsourced } = entry({});
    expect(ZAgentCatalog.safeParse({ entries: [unsourced] }).success).toBe(false);
    expect(ZAgentCatalog.safeParse({ entries: [entry({ match: {} })] }).success).toBe(false);
    expect(
      ZAgentCatalog.safeParse({
        entries: [entry({ source: { url: "http://x.test", retrieved: "2026-12-02", says: "x".repeat(30) } })],
      }).success,
    ).toBe(false);
    expect(ZAgentCatalog.safeParse({ entries: [entry({}), entry({})] }).success).toBe(false);
    expect(ZAgentCatalog.safeParse({ entries: [entry({})] }).success).toBe(true);
  });

  it("matches identifiers, never display names, and a publisher name only once Microsoft verified it", () => {
    const catalog = [entry({})];
    expect(
      matchAgentCatalog(
        { platform: "google_workspace", clientId: "111-abc.apps.googleusercontent.com" },
        catalog,
      )?.id,
    ).toBe("test-agent");
    expect(
      matchAgentCatalog(
        { platform: "google_workspace", clientId: "222.apps.googleusercontent.com" },
        catalog,
      ),
    ).toBeUndefined();
    const claude = { platform: "microsoft_365" as const, verifiedPublisherName: "Anthropic, PBC" };
    expect(matchAgentCatalog(claude)).toBeUndefined();
    expect(matchAgentCatalog({ ...claude, verifiedPublisherId: "6245567" })?.id).toBe(
      "anthropic-claude-m365",
    );
    expect(
      matchAgentCatalog({ platform: "microsoft_365", appId: "105BE974-D66D-43C9-B813-57A967BBFD21" })?.id,
    ).toBe("microsoft-dragon-copilot-apis");
    // The entry is for Microsoft 365 only.
    expect(
      matchAgentCatalog({ platform: "google_workspace", appId: "105be974-d66d-43c9-b813-57a967bbfd21" }),
    ).toBeUndefined();
  });
});

describe("classifyApp", () => {
  it("takes the platform's registry first, then the catalog, then service accounts", () => {
    expect(classifyApp({ platform: "microsoft_365", label: "Helper", registry: "agent_registry" })).toEqual({
      kind: "ai_agent",
      agentSource: "agent_registry",
    });
    expect(
      classifyApp({
        platform: "microsoft_365",
        label: "Claude",
        verifiedPublisherId: "1",
        verifiedPublisherName: "Anthropic",
      }),
    ).toEqual({ kind: "ai_agent", agentSource: "publisher_catalog" });
    expect(
      classifyApp({
        platform: "google_workspace",
        clientId: "bot@proj.iam.gserviceaccount.com",
        label: "Bot",
      }),
    ).toEqual({
      kind: "service_account",
    });
    expect(
      classifyApp({ platform: "microsoft_365", clientId: "123", label: "ChatGPT", isServiceAccount: true }),
    ).toEqual({
      kind: "service_account",
    });
  });

  it("never makes an agent of a name: the 17 words of the old list are plain apps now", () => {
    for (const label of ["ChatGPT", "Claude for Sheets", "Otter.ai Notetaker", "Gemini", "Copilot Helper"])
      expect(
        classifyApp({ platform: "google_workspace", clientId: "9.apps.googleusercontent.com", label }),
      ).toEqual({
        kind: "oauth_app",
      });
  });
});
