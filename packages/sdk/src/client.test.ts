import { describe, expect, expectTypeOf, it } from "vitest";
import { ApiError, createClient } from "./index";
import { serverDelayMs } from "./retry";
import { json, useScriptedServer, type THandler } from "./testing/scripted-server";

const { state, client } = useScriptedServer();
const seen = state.seen;

const rateLimited =
  (headers: Record<string, string>): THandler =>
  (_req, res) =>
    json(res, 429, { error: "rate_limited", message: "Too many requests", retryAfter: 1 }, headers);

describe("requests", () => {
  it("sends the key as a bearer token to <baseUrl>/api, and returns the typed body", async () => {
    state.fallback = (_req, res) => json(res, 200, { connectors: [] });
    const data = await client().get("/connectors");
    expectTypeOf(data.connectors).toBeArray();
    expect(data).toEqual({ connectors: [] });
    expect(seen[0]).toMatchObject({ method: "GET", url: "/api/connectors" });
    expect(seen[0]?.headers.authorization).toBe("Bearer svc_ak_test");
    expect(seen[0]?.headers["user-agent"]).toMatch(/^posture-sdk\//);
    // A base address that already ends in /api is used as it is.
    await createClient({ baseUrl: `${state.baseUrl}/api/`, apiKey: "k" }).get("/connectors");
    expect(seen[1]?.url).toBe("/api/connectors");
  });

  it("sends through the fetch it is given", async () => {
    const urls: string[] = [];
    const api = createClient({
      baseUrl: "https://posture.invalid",
      apiKey: "svc_ak_x",
      fetch: async (request) => {
        urls.push(`${request.method} ${request.url} ${request.headers.get("authorization")}`);
        return new Response(JSON.stringify({ connectors: [] }), {
          headers: { "content-type": "application/json" },
        });
      },
    });
    expect(await api.get("/connectors")).toEqual({ connectors: [] });
    expect(urls).toEqual(["GET https://posture.invalid/api/connectors Bearer svc_ak_x"]);
  });
});

describe("errors", () => {
  it("throws ApiError with the status, the contract's code, message and request id", async () => {
    state.fallback = (_req, res) =>
      json(
        res,
        402,
        { error: "plan_upgrade_required", message: "Upgrade", upgrade: { requiredPlan: "business" } },
        { "x-request-id": "req-123" },
      );
    const err = await client()
      .get("/findings/{id}", { params: { path: { id: "f1" } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 402,
      code: "plan_upgrade_required",
      message: "Upgrade",
      requestId: "req-123",
      upgrade: { requiredPlan: "business" },
    });
    expectTypeOf<ApiError["code"]>().toExtend<string>();
  });

  it("says `unknown` when the body is not the contract's, and does not retry a 4xx", async () => {
    state.fallback = (_req, res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<h1>nope</h1>");
    };
    const err = (await client()
      .get("/usage")
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 404, code: "unknown", body: "<h1>nope</h1>" });
    expect(err.message).toContain("404");
    expect(seen).toHaveLength(1);
  });
});

describe("retries", () => {
  it("waits out 429 + Retry-After, then returns the 200", async () => {
    state.script = [rateLimited({ "retry-after": "1" })];
    state.fallback = (_req, res) => json(res, 200, { connectors: [{ id: "c1" }] });
    const data = await client().get("/connectors");
    expect(data.connectors).toHaveLength(1);
    expect(seen).toHaveLength(2);
    const waited = (seen[1]?.at ?? 0) - (seen[0]?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(3000);
  });

  it("says that it waits, and how long, before each retry (onRetry)", async () => {
    state.script = [rateLimited({ "retry-after": "1" }), rateLimited({ "retry-after": "0" })];
    state.fallback = (_req, res) => json(res, 200, { connectors: [] });
    const waits: unknown[] = [];
    await client({ onRetry: (w) => waits.push({ ...w, url: new URL(w.url).pathname }) }).get("/connectors");
    expect(waits).toEqual([
      { method: "GET", url: "/api/connectors", status: 429, delayMs: 1000, attempt: 1 },
      { method: "GET", url: "/api/connectors", status: 429, delayMs: 0, attempt: 2 },
    ]);
  });

  it("honours the RateLimit header (r=0;t=…) when there is no Retry-After, and retries a 503", async () => {
    state.script = [
      rateLimited({ ratelimit: '"authenticated";r=0;t=1', "ratelimit-policy": '"authenticated";q=60;w=60' }),
      (_req, res) => json(res, 503, { error: "service_unavailable", message: "db down" }),
    ];
    await client().get("/usage");
    expect(seen).toHaveLength(3);
    expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(serverDelayMs(new Headers({ ratelimit: '"a";r=3;t=9' }), 0)).toBeNull();
    expect(serverDelayMs(new Headers({ "retry-after": "7", ratelimit: '"a";r=0;t=9' }), 0)).toBe(7000);
  });

  it("gives up after `retries` attempts and throws the last 429", async () => {
    state.fallback = rateLimited({ "retry-after": "0" });
    const err = (await client({ retries: 2 })
      .get("/usage")
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 429, code: "rate_limited", retryAfter: 0 });
    expect(seen).toHaveLength(3);
  });

  it("does not wait longer than maxRetryDelayMs: a far Retry-After is returned at once", async () => {
    state.fallback = rateLimited({ "retry-after": "3600" });
    const started = Date.now();
    const err = (await client()
      .get("/usage")
      .catch((e: unknown) => e)) as ApiError;
    expect(err.retryAfter).toBe(3600);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("stops waiting when the caller's signal aborts", async () => {
    state.fallback = rateLimited({ "retry-after": "30" });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error("gave up")), 100);
    const err = await client()
      .get("/usage", { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ message: "gave up" });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(seen).toHaveLength(1);
  });

  it("retries a write only with an Idempotency-Key, sending the same key and body again", async () => {
    state.script = [rateLimited({ "retry-after": "0" })];
    state.fallback = (_req, res) => json(res, 201, { id: "inc1" });
    await client().post("/incidents", { body: { title: "T", priority: "P2", findingIds: [] } });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.headers["idempotency-key"]).toBe(seen[0]?.headers["idempotency-key"]);
    expect(seen[1]?.body).toBe(seen[0]?.body);
    expect(JSON.parse(seen[1]?.body ?? "")).toEqual({ title: "T", priority: "P2", findingIds: [] });

    // Without a key, a POST is not repeated: the 429 reaches the caller.
    seen.length = 0;
    state.script = [rateLimited({ "retry-after": "0" })];
    const noKey = client({ idempotencyKey: () => null });
    const err = await noKey
      .post("/incidents", { body: { title: "T", priority: "P2", findingIds: [] } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429 });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers["idempotency-key"]).toBeUndefined();
  });
});

describe("idempotency keys", () => {
  it("puts a fresh key on every POST, PATCH, PUT and DELETE, none on GET; a caller's key wins", async () => {
    const api = client();
    await api.post("/incidents", { body: { title: "T", priority: "P2", findingIds: [] } });
    await api.patch("/incidents/{id}", { params: { path: { id: "i1" } }, body: { priority: "P1" } });
    await api.delete("/keys/{id}", { params: { path: { id: "k1" } } });
    await api.put("/integrations/ticketing", {
      body: { provider: "github", baseUrl: "https://api.github.com", project: "o/r", token: "t" },
    });
    await api.get("/usage");
    await api.post("/findings/{id}/ticket", {
      params: { path: { id: "f1" } },
      headers: { "Idempotency-Key": "mine-1" },
    });
    const keys = seen.map((s) => s.headers["idempotency-key"]);
    for (const k of keys.slice(0, 4)) expect(k).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys.slice(0, 4)).size).toBe(4);
    expect(keys[4]).toBeUndefined();
    expect(keys[5]).toBe("mine-1");
  });
});
