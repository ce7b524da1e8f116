import { describe, expect, it } from "vitest";
import { annotationsOf, buildCatalog, fillPath, WRITE_TOOLS, type TOpenApiDocument } from "./catalog";

const op = (operationId: string, access: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  operationId,
  summary: operationId,
  "x-access": access,
  responses: { "200": { content: { "application/json": {} } } },
  ...extra,
});
const key = { auth: "apiKey" };

const doc: TOpenApiDocument = {
  paths: {
    "/findings": {
      get: op("findings-list", key, {
        parameters: [{ name: "limit", in: "query", schema: { type: "integer" } }],
      }),
    },
    "/findings/{id}": {
      get: op("findings-get", key, { parameters: [{ name: "id", in: "path", schema: { type: "string" } }] }),
    },
    "/findings/{id}/ticket": { post: op("findings-ticket-create", key) },
    // A GET whose procedure is a mutation (it marks the finding seen): never a read tool.
    "/findings/{id}/seen": {
      get: op("findings-seen", key, { parameters: [{ name: "id", in: "path", schema: { type: "string" } }] }),
    },
    "/posture/simulate": { post: op("posture-simulate", key) },
    "/partner/actions": { post: op("partner-actions-create", { auth: "partner", role: "ADMIN" }) },
    "/inventory": { get: op("inventory-list", { auth: "session", role: "ADMIN" }) },
    "/keys": { get: op("keys-list", key), post: op("keys-create", { auth: "session" }) },
    "/remediations": {
      get: op("remediations-list", { auth: "apiKey", role: "ADMIN" }),
      post: op(
        "remediations-create",
        { auth: "apiKey", role: "ADMIN", plan: "business" },
        {
          requestBody: {
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/Plan" } },
            },
          },
        },
      ),
    },
    "/remediations/{id}/approve": { post: op("remediations-approve", key) },
    "/partner/reports/{id}": {
      get: op(
        "partner-reports-get",
        { auth: "partner" },
        {
          parameters: [{ name: "id", in: "path", schema: { type: "string" } }],
          responses: { "200": { content: { "application/pdf": {} } } },
        },
      ),
    },
  },
  components: {
    schemas: { Plan: { type: "object", properties: { findingIds: { type: "array" } }, required: [] } },
  },
};

describe("the MCP catalog", () => {
  const catalog = buildCatalog(doc);
  const names = catalog.tools.map((t) => t.name);

  it("has a read tool per API-key GET in the areas, and only the planning writes", () => {
    expect(names).toEqual([
      "findings_get",
      "findings_list",
      "findings_seen",
      "partner_actions_create",
      "posture_simulate",
      "remediations_create",
    ]);
  });

  it("leaves out a mutation the procedure kinds name, whatever its method", () => {
    const kinds: Record<string, "query" | "mutation"> = {
      "findings.get": "query",
      "findings.list": "query",
      "findings.seen": "mutation",
      "partner.actions.create": "mutation",
      "posture.simulate": "mutation",
      "remediations.create": "mutation",
    };
    const known = buildCatalog(doc, { kindOf: (k) => kinds[k] });
    expect(known.tools.map((t) => t.name)).not.toContain("findings_seen");
    expect(known.tools.map((t) => t.name)).toHaveLength(5);
  });

  it("annotates from what the procedure does: a planning write is no read", () => {
    const kinds = { "posture.simulate": "mutation", "partner.actions.create": "mutation" } as const;
    const known = buildCatalog(doc, { kindOf: (k) => kinds[k as keyof typeof kinds] });
    const by = new Map(known.tools.map((t) => [t.name, t.annotations]));
    const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    const plans = {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    };
    expect(by.get("findings_list")).toEqual(read);
    expect(by.get("posture_simulate")).toEqual(read);
    expect(by.get("remediations_create")).toEqual(plans);
    expect(by.get("partner_actions_create")).toEqual(plans);
    expect(annotationsOf("query", WRITE_TOOLS.get("POST /partner/actions"))).toEqual(read);
    expect(annotationsOf("mutation", WRITE_TOOLS.get("POST /partner/actions"))).toEqual(plans);
    // A mutation no table describes is taken as one that writes.
    expect(annotationsOf("mutation")).toEqual(plans);
  });

  it("leaves out Session-only reads, other areas, and every other write", () => {
    for (const n of [
      "inventory_list",
      "keys_list",
      "remediations_list",
      "remediations_approve",
      "findings_ticket_create",
    ])
      expect(names).not.toContain(n);
  });

  it("takes input schemas from the document, references resolved", () => {
    const get = catalog.tools.find((t) => t.name === "findings_get");
    expect(get?.inputSchema).toMatchObject({ properties: { id: { type: "string" } }, required: ["id"] });
    expect(get?.annotations.readOnlyHint).toBe(true);
    const plan = catalog.tools.find((t) => t.name === "remediations_create");
    expect(plan?.inputSchema.properties.findingIds).toEqual({ type: "array" });
    expect(plan?.annotations.readOnlyHint).toBe(false);
    expect(plan?.description).toContain("role ADMIN+");
    expect(plan?.description).toContain("nothing is applied");
  });

  it("makes downloads resource templates", () => {
    expect(catalog.resources.map((r) => [r.uriTemplate, r.mimeType])).toEqual([
      ["posture://partner/reports/{id}", "application/pdf"],
    ]);
  });

  it("fills path parameters percent-encoded", () => {
    const get = catalog.tools.find((t) => t.name === "findings_get");
    expect(get && fillPath(get.op, { id: "a/b c" })).toBe("/findings/a%2Fb%20c");
  });
});
