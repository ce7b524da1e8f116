import { describe, expect, it } from "vitest";
import { useTestGateway } from "../../testing";
import { compileGetRoutes } from "../../rest-dispatch";
import { appRouter } from "../../router";
import { freshIp } from "../helpers";

const gw = useTestGateway();

describe("the precompiled GET dispatch", () => {
  const routes = compileGetRoutes(appRouter);

  it("matches as trpc-to-openapi does: literal paths, parameters, trailing slash, any case", () => {
    expect(routes).not.toBeNull();
    expect(routes?.match("/usage")?.route.name).toBe("usage.get");
    expect(routes?.match("/usage/")?.route.name).toBe("usage.get");
    expect(routes?.match("/USAGE")?.route.name).toBe("usage.get");
    expect(routes?.match("/nothing-here")).toBeUndefined();
    // Escapes and dot segments are left to the library's URL parsing.
    expect(routes?.match("/usage/../usage")).toBeUndefined();
    expect(routes?.match("/%75sage")).toBeUndefined();
  });

  it("answers like the library: the same body, status and errors", async () => {
    const actor = await gw.createActor({ plan: "business", role: "OWNER" });
    const ip = freshIp();
    const plain = await gw.request("GET", "/api/usage", { key: actor.key, ip });
    expect(plain.status).toBe(200);
    expect((await gw.request("GET", "/api/usage/", { key: actor.key, ip })).body).toEqual(plain.body);
    // Coerced query input and its validation errors.
    const page = await gw.request("GET", "/api/findings?limit=2&offset=0", { key: actor.key, ip });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ limit: 2, offset: 0 });
    const bad = await gw.request("GET", "/api/findings?limit=abc", { key: actor.key, ip });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "invalid_input" });
    expect((await gw.request("GET", "/api/usage", { ip })).body).toMatchObject({ error: "unauthenticated" });
  });
});
