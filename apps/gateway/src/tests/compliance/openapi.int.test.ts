import { beforeAll, describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";

const gw = useTestGateway();
type TOp = {
  responses: Record<string, { content?: Record<string, unknown> }>;
  "x-access"?: Record<string, unknown>;
};
let paths: Record<string, Record<string, TOp>>;
beforeAll(async () => {
  paths = ((await gw.request("GET", "/api/openapi.json")).body as { paths: typeof paths }).paths;
});

const op = (path: string, method: string): TOp => {
  const o = paths[path]?.[method];
  if (!o) throw new Error(`${method} ${path} missing from the document`);
  return o;
};

describe("the OpenAPI document describes compliance, reports and partner routes", () => {
  it("documents downloads with their content types", () => {
    for (const [path, type] of [
      ["/compliance/gap-report", "application/pdf"],
      ["/reports/compliance", "application/pdf"],
      ["/partner/reports/{id}", "application/pdf"],
      ["/compliance/evidence/{jobId}", "application/zip"],
    ] as const) {
      expect(Object.keys(op(path, "get").responses["200"]?.content ?? {}), path).toContain(type);
    }
    expect(Object.keys(op("/compliance/evidence/{jobId}", "get").responses["200"]?.content ?? {})).toContain(
      "application/json",
    );
    expect(op("/compliance/evidence/{jobId}", "get").responses["410"]).toBeDefined();
    expect(op("/compliance/evidence/generate", "post").responses["202"]).toBeDefined();
    expect(op("/reports/compliance", "get").responses["429"]).toBeDefined();
  });

  it("carries each route's access", () => {
    expect(op("/compliance/reports", "post")["x-access"]).toEqual({ auth: "apiKey", plan: "starter" });
    expect(op("/compliance/dashboard", "get")["x-access"]).toEqual({ auth: "apiKey", plan: "business" });
    expect(op("/reports/compliance", "get")["x-access"]).toEqual({
      auth: "session",
      plan: "business",
      feature: "complianceExport",
      role: "ADMIN",
    });
    for (const p of ["/partner/reports/portfolio", "/partner/reports/client/{orgId}", "/partner/reports"]) {
      expect(op(p, "get")["x-access"]).toEqual({ auth: "partner", plan: "enterprise" });
    }
    expect(op("/partner/settings", "patch")["x-access"]).toEqual({
      auth: "partner",
      plan: "enterprise",
      role: "ADMIN",
    });
  });
});
