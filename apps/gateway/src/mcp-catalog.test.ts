import { describe, expect, it } from "vitest";
import { buildCatalog, type TOpenApiDocument } from "@posture/mcp";
import { routeCatalog } from "@posture/platform";
import { gatewayCatalog } from "./mcp";
import { buildOpenApiDocument } from "./openapi";
import { appRouter } from "./router";

// Issue 28, item 7: every tool of the real catalog is annotated from the procedure behind it. A
// query-backed tool is read-only; a mutation-backed one writes (readOnlyHint false) unless it
// computes only, which only posture_simulate does (tests/mcp/mcp-hardening.int.test.ts measures
// that each call writes what its annotations say, table by table).

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const PLANS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const catalog = routeCatalog(appRouter);

describe("the MCP tools' annotations", { timeout: 60_000 }, () => {
  const doc = buildOpenApiDocument("http://localhost:3000") as unknown as TOpenApiDocument;
  const served = gatewayCatalog(doc);

  it("follow each tool's procedure: every query-backed tool reads, the mutations are the table", () => {
    const byKind: Record<string, Record<string, unknown>> = { query: {}, mutation: {} };
    for (const tool of served.tools) {
      const kind = catalog.byKey.get(tool.op.key)?.kind ?? "missing";
      (byKind[kind] ??= {})[tool.name] = tool.annotations;
    }
    expect(Object.keys(byKind).sort()).toEqual(["mutation", "query"]);
    for (const [name, annotations] of Object.entries(byKind.query ?? {}))
      expect(annotations, name).toEqual(READ);
    expect(byKind.mutation).toEqual({
      partner_actions_create: PLANS,
      posture_simulate: READ,
      remediations_create: PLANS,
    });
    expect(Object.keys(byKind.query ?? {}).length + 3).toBe(served.tools.length);
  });

  it("a mutation-backed tool that plans is never read-only, whatever its method", () => {
    for (const tool of served.tools) {
      const writes = tool.name === "remediations_create" || tool.name === "partner_actions_create";
      expect(tool.annotations.readOnlyHint, tool.name).toBe(!writes);
      expect(tool.annotations.idempotentHint, tool.name).toBe(!writes);
    }
  });

  it("are the same for the stdio server, which knows only the document", () => {
    const stdio = buildCatalog(doc);
    expect(stdio.tools.map((t) => [t.name, t.annotations])).toEqual(
      served.tools.map((t) => [t.name, t.annotations]),
    );
    expect(stdio.resources.map((r) => r.name)).toEqual(served.resources.map((r) => r.name));
  });
});
