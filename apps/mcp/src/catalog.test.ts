import { describe, expect, it } from "vitest";
import { buildCatalog, fillPath, type TOpenApiDocument } from "./catalog";

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
    expect(names).toEqual(["findings_get", "findings_list", "remediations_create"]);
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
