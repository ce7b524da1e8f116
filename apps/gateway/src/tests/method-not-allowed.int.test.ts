import { beforeAll, describe, expect, it } from "vitest";
import { routeCatalog } from "@posture/platform";
import { appRouter } from "../router";
import { type TTestGateway, useTestGateway } from "../testing";
import { freshIp } from "./helpers";

const gw = useTestGateway();
let owner: Awaited<ReturnType<TTestGateway["createActor"]>>;
beforeAll(async () => {
  owner = await gw.createActor({ plan: "enterprise", role: "OWNER" });
});

const send = (method: string, path: string, o: Parameters<TTestGateway["request"]>[2] = {}) =>
  gw.request(method, path, { ip: freshIp(), ...o });

// Every REST path of the router with the methods its procedures declare: what Allow must list.
const declared = new Map<string, Set<string>>();
for (const { rest: openapi } of routeCatalog(appRouter).rest) {
  const methods = declared.get(openapi.path) ?? new Set<string>();
  methods.add(openapi.method);
  declared.set(openapi.path, methods);
}
const ALL = ["GET", "POST", "PUT", "PATCH", "DELETE"];

describe("a known path with another method", () => {
  it("is 405 method_not_allowed with Allow listing the path's methods, for every REST path", async () => {
    const problems: string[] = [];
    for (const [template, methods] of declared) {
      const path = `/api${template.replace(/\{[^}]+\}/g, "some-id")}`;
      const wrong = ALL.find((m) => !methods.has(m));
      if (!wrong) continue;
      const res = await send(wrong, path, { key: owner.key, ...(wrong === "GET" ? {} : { body: {} }) });
      const allow = res.headers.get("allow");
      const expected = [...methods].sort().join(", ");
      const code = (res.body as { error?: string } | undefined)?.error;
      if (res.status !== 405 || code !== "method_not_allowed" || allow !== expected) {
        problems.push(
          `${wrong} ${path}: ${res.status} ${code} Allow=${allow}, expected 405 Allow=${expected}`,
        );
      }
    }
    expect(problems).toEqual([]);
    expect(declared.size).toBeGreaterThan(10);
  });

  it("unions the methods of a template and a literal path that both match", async () => {
    const res = await send("PUT", "/api/connectors/abc", { key: owner.key, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("DELETE, PATCH");
    expect(res.body).toMatchObject({
      error: "method_not_allowed",
      message: expect.any(String),
      allow: ["DELETE", "PATCH"],
    });
  });

  it("covers the gateway's own documents and anonymous callers", async () => {
    const res = await send("POST", "/api/openapi.json", { body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
    expect((await send("DELETE", "/api/docs")).headers.get("allow")).toBe("GET");
  });

  it("keeps unknown paths 404 and known ones working", async () => {
    expect((await send("GET", "/api/nope")).status).toBe(404);
    expect((await send("POST", "/api/connectors/a/b/c", { body: {} })).status).toBe(404);
    expect((await send("GET", "/api/usage", { key: owner.key })).status).toBe(200);
  });

  it("tRPC: a query called with POST, or a mutation with GET, is 405 with Allow", async () => {
    const query = await send("POST", "/trpc/usage.get", { key: owner.key, body: {} });
    expect(query.status).toBe(405);
    expect(query.headers.get("allow")).toBe("GET");
    const mutation = await send("GET", "/trpc/keys.create", { key: owner.key });
    expect(mutation.status).toBe(405);
    expect(mutation.headers.get("allow")).toBe("POST");
  });
});
