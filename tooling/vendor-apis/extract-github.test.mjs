import { describe, expect, it } from "vitest";
import { extract, OPERATIONS } from "./extract-github.mjs";

// The extractor on a small description of the same shape as api.github.com.json: it resolves
// parameter and response references, keeps structure only, and follows schema references to
// their closure. (The real package is not in the repository; its extract is checked by the
// connectors' tests against what the fake and the adapter use.)

const op = (id, extra = {}) => ({
  operationId: id,
  externalDocs: { url: `https://docs.github.com/rest/${id}` },
  "x-github": { enabledForGitHubApps: true },
  parameters: [],
  responses: { 200: { description: "Response", content: { "application/json": { schema: {} } } } },
  ...extra,
});

function description() {
  const paths = {};
  for (const { method, path } of OPERATIONS) (paths[path] ??= {})[method] = op(path.replace(/\W+/g, "-"));
  paths["/orgs/{org}/repos"].get = op("repos/list-for-org", {
    parameters: [
      { $ref: "#/components/parameters/per-page" },
      {
        name: "type",
        in: "query",
        description: "drop me",
        schema: { type: "string", enum: ["all", "public"] },
      },
    ],
    responses: {
      200: {
        description: "Response",
        content: {
          "application/json": {
            schema: { type: "array", items: { $ref: "#/components/schemas/minimal-repository" } },
          },
        },
      },
    },
  });
  return {
    openapi: "3.0.3",
    info: { version: "1.1.4" },
    paths,
    components: {
      parameters: { "per-page": { name: "per_page", in: "query", schema: { type: "integer", default: 30 } } },
      schemas: {
        "minimal-repository": {
          type: "object",
          required: ["id", "owner"],
          properties: {
            id: { type: "integer", example: 1 },
            owner: { $ref: "#/components/schemas/simple-user" },
          },
        },
        "simple-user": { type: "object", description: "A user", properties: { login: { type: "string" } } },
        unused: { type: "object" },
      },
    },
  };
}

describe("extract-github", () => {
  it("keeps the operations used, their parameters and the schemas they reach, structure only", () => {
    const out = extract(description(), { name: "@octokit/openapi", version: "0.0.0-test" });
    expect(out.source).toMatchObject({
      package: "@octokit/openapi",
      version: "0.0.0-test",
      openapi: "3.0.3",
    });
    expect(out.operations).toHaveLength(OPERATIONS.length);
    const repos = out.operations.find((o) => o.path === "/orgs/{org}/repos");
    expect(repos).toMatchObject({
      operationId: "repos/list-for-org",
      method: "GET",
      auth: "installation",
      permissions: { anyOf: [{ metadata: "read" }] },
      parameters: [
        { name: "per_page", in: "query", required: false, schema: { type: "integer" } },
        { name: "type", in: "query", required: false, schema: { type: "string", enum: ["all", "public"] } },
      ],
      responses: { 200: { schema: { type: "array", items: { $ref: "minimal-repository" } } } },
    });
    expect(out.schemas).toEqual({
      "minimal-repository": {
        type: "object",
        required: ["id", "owner"],
        properties: { id: { type: "integer" }, owner: { $ref: "simple-user" } },
      },
      "simple-user": { type: "object", properties: { login: { type: "string" } } },
    });
  });

  it("fails when the description lacks an operation the connector makes", () => {
    const doc = description();
    delete doc.paths["/orgs/{org}/teams"];
    expect(() => extract(doc, { name: "x", version: "1" })).toThrow(
      "GET /orgs/{org}/teams is not in the description",
    );
  });
});
