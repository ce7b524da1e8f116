import { describe, expect, it } from "vitest";
import { z } from "zod";
import { routeCatalog } from "./route-catalog";
import { mergeRouters, publicProcedure, router } from "./trpc";

const api = mergeRouters(
  router({
    findings: router({
      list: publicProcedure
        .meta({ openapi: { method: "GET", path: "/findings" } })
        .input(z.object({ limit: z.number().optional() }))
        .query(() => []),
      get: publicProcedure
        .meta({ openapi: { method: "GET", path: "/findings/{id}/" } })
        .input(z.object({ id: z.string() }))
        .query(() => null),
      generate: publicProcedure
        .meta({ openapi: { method: "POST", path: "/findings/generate" } })
        .mutation(() => null),
    }),
  }),
  router({ internal: publicProcedure.query(() => 1) }),
);

describe("routeCatalog", () => {
  const catalog = routeCatalog(api);

  it("reads every procedure once, in registration order, with its kind and input", () => {
    expect(catalog.entries.map((e) => [e.key, e.kind])).toEqual([
      ["findings.list", "query"],
      ["findings.get", "query"],
      ["findings.generate", "mutation"],
      ["internal", "query"],
    ]);
    expect(routeCatalog(api)).toBe(catalog);
    expect(catalog.byKey.get("findings.generate")?.input).toBeUndefined();
    expect(catalog.byKey.get("internal")?.rest).toBeUndefined();
    expect(catalog.rest.map((e) => e.key)).toEqual(["findings.list", "findings.get", "findings.generate"]);
  });

  it("derives each REST route as trpc-to-openapi matches it", () => {
    const get = catalog.byKey.get("findings.get")?.rest;
    expect(get).toMatchObject({
      method: "GET",
      path: "/findings/{id}/",
      apiPath: "/api/findings/{id}",
      template: "GET /api/findings/{id}",
      params: ["id"],
      literal: false,
      body: false,
    });
    expect(get?.pattern.exec("/FINDINGS/abc")?.groups).toEqual({ id: "abc" });
    expect(get?.pattern.test("/findings/abc/def")).toBe(false);
    expect(catalog.byKey.get("findings.generate")?.rest?.body).toBe(true);
  });

  it("finds a route by method and declared path, and a literal path's methods", () => {
    expect(catalog.at("GET", "/findings/{id}/")?.key).toBe("findings.get");
    expect(catalog.at("POST", "/findings")).toBeUndefined();
    expect(catalog.literalMethods("/Findings/Generate/")).toEqual(new Set(["POST"]));
    expect(catalog.literalMethods("/findings/abc")).toBeUndefined();
  });
});
