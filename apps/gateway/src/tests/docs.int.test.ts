import { request as httpRequest } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { useTestGateway } from "../testing";
import { freshIp, times } from "./helpers";

// The API reference is static: cached by clients and shared caches, not counted against the API
// budgets (a budget of its own), and sent compressed. Every response is compressed when the
// client accepts it, except what is not compressible (PDF, ZIP).

const gw = useTestGateway();

type TRaw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A GET that keeps the body as sent (fetch would decode it). */
function rawGet(path: string, headers: Record<string, string>): Promise<TRaw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gw.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

async function assetPaths(ip: string): Promise<string[]> {
  const page = await gw.request("GET", "/api/docs", { ip });
  expect(page.status).toBe(200);
  const scripts = [...page.text.matchAll(/src="(\/api\/docs\/assets\/[\w.-]+\.js)"/g)].map((m) => m[1] ?? "");
  expect(scripts).toHaveLength(2);
  return scripts;
}

describe("GET /api/docs and its assets", () => {
  it("30 loads of the page, its scripts and the document from one client are all served", async () => {
    const ip = freshIp();
    const scripts = await assetPaths(ip);
    const statuses: number[] = [];
    for (let load = 0; load < 30; load++) {
      const res = await times(4, (i) =>
        gw.request("GET", ["/api/docs", ...scripts, "/api/openapi.json"][i] ?? "", { ip }),
      );
      statuses.push(...res.map((r) => r.status));
    }
    expect(statuses).toEqual(Array(120).fill(200));
    // None of it touched the API budget of that client.
    const api = await gw.request("GET", "/api/no-such-route", { ip });
    expect(api.headers.get("ratelimit")).toMatch(/^"anonymous";r=19;t=\d+$/);
    // 30 × 4.3 MB of bundle, decoded: slow on a busy machine.
  }, 90_000);

  it("has a generous budget of its own", async () => {
    const ip = freshIp();
    const res = await gw.request("GET", "/api/openapi.json", { ip });
    expect(res.headers.get("ratelimit-policy")).toBe('"docs";q=300;w=60');
  });

  it("is cacheable: public with an ETag, revalidated with 304; the versioned bundle is immutable", async () => {
    const ip = freshIp();
    const [bundle, init] = await assetPaths(ip);
    for (const path of ["/api/docs", init ?? "", "/api/openapi.json"]) {
      const first = await rawGet(path, { "x-forwarded-for": ip });
      expect(first.status).toBe(200);
      expect(first.headers["cache-control"]).toBe("public, max-age=300");
      const etag = String(first.headers.etag ?? "");
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await rawGet(path, { "x-forwarded-for": ip, "if-none-match": etag });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
    }
    const b = await rawGet(bundle ?? "", { "x-forwarded-for": ip, "accept-encoding": "identity" });
    expect(b.status).toBe(200);
    expect(b.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(b.headers["content-encoding"]).toBeUndefined();
    expect(b.body.toString("utf8")).toContain("createApiReference");
  });

  it("sends the assets compressed when accepted (brotli preferred, else gzip)", async () => {
    const ip = freshIp();
    const [bundle] = await assetPaths(ip);
    const plain = await rawGet(bundle ?? "", { "x-forwarded-for": ip, "accept-encoding": "identity" });
    const gz = await rawGet(bundle ?? "", { "x-forwarded-for": ip, "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers.vary).toMatch(/accept-encoding/i);
    expect(gz.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    const br = await rawGet(bundle ?? "", { "x-forwarded-for": ip, "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    const page = await rawGet("/api/docs", { "x-forwarded-for": ip, "accept-encoding": "gzip" });
    expect(page.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(page.body).toString("utf8")).toMatch(/^<!doctype html>/i);
  });
});

describe("response compression", () => {
  it("gzips a JSON response when the client accepts it; the decoded body is the same", async () => {
    const actor = await gw.createActor({ plan: "business" });
    // Enough keys for a list above the 1 kB threshold.
    for (let i = 0; i < 8; i++) await gw.createApiKey(actor.orgId, actor.user.id);
    const headers = { "x-forwarded-for": freshIp(), authorization: `Bearer ${actor.key}` };
    const plain = await rawGet("/api/keys", { ...headers, "accept-encoding": "identity" });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    const gz = await rawGet("/api/keys", { ...headers, "accept-encoding": "gzip" });
    expect(gz.status).toBe(200);
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers["content-type"]).toMatch(/^application\/json/);
    expect(gz.headers.vary).toMatch(/accept-encoding/i);
    expect(gz.body.length).toBeLessThan(plain.body.length);
    expect(JSON.parse(gunzipSync(gz.body).toString("utf8"))).toEqual(JSON.parse(plain.body.toString("utf8")));
    // The OpenAPI document too (compressed per response by the middleware).
    const doc = await rawGet("/api/openapi.json", {
      "x-forwarded-for": freshIp(),
      "accept-encoding": "gzip",
    });
    expect(doc.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(doc.body).toString("utf8"))).toHaveProperty("openapi");
  });

  it("leaves tRPC's streamed batches alone: each call's result must leave as soon as it is ready", async () => {
    const path = `/trpc/${Array(3).fill("health.get").join(",")}?batch=1`;
    const headers = { "x-forwarded-for": freshIp(), "accept-encoding": "gzip" };
    const streamed = await rawGet(path, { ...headers, "trpc-accept": "application/jsonl" });
    expect(streamed.status).toBe(200);
    expect(streamed.headers["content-encoding"]).toBeUndefined();
    expect(streamed.body.toString("utf8")).toContain("status");
  });

  it("leaves a PDF download as it is", async () => {
    const actor = await gw.createActor({ plan: "business" });
    const pdf = await rawGet("/api/compliance/gap-report", {
      "x-forwarded-for": freshIp(),
      authorization: `Bearer ${actor.key}`,
      "accept-encoding": "gzip, br",
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers["content-type"]).toBe("application/pdf");
    expect(pdf.headers["content-encoding"]).toBeUndefined();
    expect(pdf.body.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  });
});
