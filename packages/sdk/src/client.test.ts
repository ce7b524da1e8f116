import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import { ApiError, createClient, type PostureClient } from "./index";
import { serverDelayMs } from "./retry";

type TSeen = { method: string; url: string; headers: IncomingHttpHeaders; body: string; at: number };
type THandler = (req: TSeen, res: ServerResponse) => void;

// A local HTTP server that answers from a script of handlers and records what it was sent.
const seen: TSeen[] = [];
let script: THandler[] = [];
let fallback: THandler = (_req, res) => json(res, 200, {});
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const r = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
      at: Date.now(),
    };
    seen.push(r);
    (script.shift() ?? fallback)(r, res);
  });
});
let baseUrl = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
  script = [];
  fallback = (_req, res) => json(res, 200, {});
});

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
const rateLimited =
  (headers: Record<string, string>): THandler =>
  (_req, res) =>
    json(res, 429, { error: "rate_limited", message: "Too many requests", retryAfter: 1 }, headers);

const client = (o: Partial<Parameters<typeof createClient>[0]> = {}): PostureClient =>
  createClient({ baseUrl, apiKey: "svc_ak_test", retryBaseDelayMs: 5, ...o });

describe("requests", () => {
  it("sends the key as a bearer token to <baseUrl>/api, and returns the typed body", async () => {
    fallback = (_req, res) => json(res, 200, { connectors: [] });
    const data = await client().get("/connectors");
    expectTypeOf(data.connectors).toBeArray();
    expect(data).toEqual({ connectors: [] });
    expect(seen[0]).toMatchObject({ method: "GET", url: "/api/connectors" });
    expect(seen[0]?.headers.authorization).toBe("Bearer svc_ak_test");
    expect(seen[0]?.headers["user-agent"]).toMatch(/^posture-sdk\//);
    // A base address that already ends in /api is used as it is.
    await createClient({ baseUrl: `${baseUrl}/api/`, apiKey: "k" }).get("/connectors");
    expect(seen[1]?.url).toBe("/api/connectors");
  });
});

describe("errors", () => {
  it("throws ApiError with the status, the contract's code, message and request id", async () => {
    fallback = (_req, res) =>
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
    fallback = (_req, res) => {
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
    script = [rateLimited({ "retry-after": "1" })];
    fallback = (_req, res) => json(res, 200, { connectors: [{ id: "c1" }] });
    const data = await client().get("/connectors");
    expect(data.connectors).toHaveLength(1);
    expect(seen).toHaveLength(2);
    const waited = (seen[1]?.at ?? 0) - (seen[0]?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(3000);
  });

  it("honours the RateLimit header (r=0;t=…) when there is no Retry-After, and retries a 503", async () => {
    script = [
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
    fallback = rateLimited({ "retry-after": "0" });
    const err = (await client({ retries: 2 })
      .get("/usage")
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 429, code: "rate_limited", retryAfter: 0 });
    expect(seen).toHaveLength(3);
  });

  it("does not wait longer than maxRetryDelayMs: a far Retry-After is returned at once", async () => {
    fallback = rateLimited({ "retry-after": "3600" });
    const started = Date.now();
    const err = (await client()
      .get("/usage")
      .catch((e: unknown) => e)) as ApiError;
    expect(err.retryAfter).toBe(3600);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("stops waiting when the caller's signal aborts", async () => {
    fallback = rateLimited({ "retry-after": "30" });
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
    script = [rateLimited({ "retry-after": "0" })];
    fallback = (_req, res) => json(res, 201, { id: "inc1" });
    await client().post("/incidents", { body: { title: "T", priority: "P2", findingIds: [] } });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.headers["idempotency-key"]).toBe(seen[0]?.headers["idempotency-key"]);
    expect(seen[1]?.body).toBe(seen[0]?.body);
    expect(JSON.parse(seen[1]?.body ?? "")).toEqual({ title: "T", priority: "P2", findingIds: [] });

    // Without a key, a POST is not repeated: the 429 reaches the caller.
    seen.length = 0;
    script = [rateLimited({ "retry-after": "0" })];
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

describe("paginate", () => {
  it("walks offset pages by nextOffset, keeping the caller's filters", async () => {
    const all = Array.from({ length: 5 }, (_, i) => ({ id: `f${i}` }));
    fallback = (req, res) => {
      const q = new URL(req.url, "http://x").searchParams;
      const offset = Number(q.get("offset") ?? 0);
      const limit = Number(q.get("limit"));
      const next = offset + limit < all.length ? offset + limit : null;
      json(res, 200, {
        findings: all.slice(offset, offset + limit),
        total: 5,
        limit,
        offset,
        nextOffset: next,
      });
    };
    const ids: string[] = [];
    for await (const f of client().paginate("/findings", {
      params: { query: { limit: 2, severity: "HIGH" } },
    })) {
      expectTypeOf(f.severity).toEqualTypeOf<"CRITICAL" | "HIGH" | "MEDIUM" | "LOW">();
      ids.push(f.id);
    }
    expect(ids).toEqual(["f0", "f1", "f2", "f3", "f4"]);
    expect(seen.map((s) => s.url)).toEqual([
      "/api/findings?limit=2&severity=HIGH",
      "/api/findings?limit=2&severity=HIGH&offset=2",
      "/api/findings?limit=2&severity=HIGH&offset=4",
    ]);
  });

  it("walks cursor pages by nextCursor (as `before`)", async () => {
    script = [
      (_req, res) => json(res, 200, { items: [{ id: "a" }, { id: "b" }], nextCursor: "c1" }),
      (_req, res) => json(res, 200, { items: [{ id: "c" }], nextCursor: null }),
    ];
    const ids: string[] = [];
    for await (const item of client().paginate("/timeline", { params: { query: { limit: 2 } } }))
      ids.push(item.id);
    expect(ids).toEqual(["a", "b", "c"]);
    expect(seen[1]?.url).toBe("/api/timeline?limit=2&before=c1");
  });

  it("walks numbered pages up to totalPages, and stops fetching when the loop breaks", async () => {
    fallback = (req, res) => {
      const page = Number(new URL(req.url, "http://x").searchParams.get("page") ?? 1);
      json(res, 200, { entries: [{ id: `e${page}` }], page, limit: 1, total: 3, totalPages: 3 });
    };
    const ids: string[] = [];
    for await (const e of client().paginate("/audit", { params: { query: { limit: 1 } } })) ids.push(e.id);
    expect(ids).toEqual(["e1", "e2", "e3"]);
    expect(seen.map((s) => s.url)).toEqual([
      "/api/audit?limit=1",
      "/api/audit?limit=1&page=2",
      "/api/audit?limit=1&page=3",
    ]);

    seen.length = 0;
    for await (const e of client().paginate("/audit")) if (e.id === "e1") break;
    expect(seen).toHaveLength(1);
  });
});

describe("downloads", () => {
  it("returns the body as a web stream that arrives before the server has finished", async () => {
    let finish: () => void = () => {};
    fallback = (_req, res) => {
      res.writeHead(200, {
        "content-type": "application/pdf",
        "content-disposition": 'attachment; filename="incident-1.pdf"',
      });
      res.write("%PDF-1.7\n");
      finish = () => res.end("%%EOF\n");
    };
    const file = await client().download("/incidents/{id}/export", { params: { path: { id: "i1" } } });
    expect(file).toMatchObject({ contentType: "application/pdf", filename: "incident-1.pdf" });
    expect(file.stream).toBeInstanceOf(ReadableStream);
    const reader = file.stream.getReader();
    // The first chunk is readable while the response is still open: nothing was buffered.
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("%PDF-1.7\n");
    finish();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += new TextDecoder().decode(r.value);
    expect(rest).toBe("%%EOF\n");
  });

  it("throws ApiError for an error answer instead of streaming it", async () => {
    fallback = (_req, res) => json(res, 410, { error: "expired", message: "The package expired" });
    const err = await client()
      .download("/compliance/evidence/{jobId}", { params: { path: { jobId: "j" } } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 410, code: "expired" });
  });
});
