import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startTestGateway, useTestGateway, type TTestResponse } from "../testing";
import { errorCode, freshIp, times } from "./helpers";

// Any API path goes through the limiter; an unknown one needs no data (404, counted all the same).
// The API reference (/api/docs, /api/openapi.json) has a budget of its own: see docs.int.test.ts.
const PATH = "/api/no-such-route";
const SERVED = 404;

function expectLimited(res: TTestResponse, policy: string, quota: number) {
  expect(res.status).toBe(429);
  expect(errorCode(res)).toBe("rate_limited");
  const retryAfter = res.headers.get("retry-after") ?? "";
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(res.headers.get("ratelimit-policy")).toBe(`"${policy}";q=${quota};w=60`);
  expect(res.headers.get("ratelimit")).toBe(`"${policy}";r=0;t=${retryAfter}`);
}

const gw = useTestGateway();

describe("per-IP rate limits", () => {
  it("allows 20 anonymous requests a minute per IP, then 429 with Retry-After", async () => {
    const ip = freshIp();
    const ok = await times(20, () => gw.request("GET", PATH, { ip }));
    expect(ok.map((r) => r.status)).toEqual(Array(20).fill(SERVED));
    for (const r of ok) {
      expect(r.headers.get("ratelimit-policy")).toBe('"anonymous";q=20;w=60');
      expect(r.headers.get("ratelimit")).toMatch(/^"anonymous";r=\d+;t=\d+$/);
    }
    const remaining = ok.map((r) => Number(/r=(\d+)/.exec(r.headers.get("ratelimit") ?? "")?.[1]));
    expect(Math.min(...remaining)).toBe(0);
    expectLimited(await gw.request("GET", PATH, { ip }), "anonymous", 20);
  });

  it("allows 60 authenticated requests a minute per IP, then 429", async () => {
    const actor = await gw.createActor({ plan: "business" });
    const ip = freshIp();
    const ok = await times(60, () => gw.request("GET", PATH, { ip, key: actor.key }));
    expect(ok.filter((r) => r.status === SERVED)).toHaveLength(60);
    expect(ok[0]?.headers.get("ratelimit-policy")).toBe('"authenticated";q=60;w=60');
    expectLimited(await gw.request("GET", PATH, { ip, key: actor.key }), "authenticated", 60);
    // The same credential from another address has its own budget.
    expect((await gw.request("GET", PATH, { ip: freshIp(), key: actor.key })).status).toBe(SERVED);
  });

  it("a failed credential counts as anonymous", async () => {
    const ip = freshIp();
    const res = await gw.request("GET", PATH, { ip, key: `svc_ak_${"0".repeat(40)}` });
    expect(res.headers.get("ratelimit-policy")).toBe('"anonymous";q=20;w=60');
  });

  it("counts each client IP separately", async () => {
    const a = freshIp();
    await times(20, () => gw.request("GET", PATH, { ip: a }));
    expect((await gw.request("GET", PATH, { ip: a })).status).toBe(429);
    const b = await gw.request("GET", PATH, { ip: freshIp() });
    expect(b.status).toBe(SERVED);
    expect(b.headers.get("ratelimit")).toMatch(/^"anonymous";r=19;t=\d+$/);
  });

  it("limits unknown paths too, but never GET /api/health", async () => {
    const ip = freshIp();
    await times(20, () => gw.request("GET", "/api/no-such-thing", { ip }));
    expect((await gw.request("GET", "/api/usage", { ip })).status).toBe(429);
    const health = await times(5, () => gw.request("GET", "/api/health", { ip }));
    expect(health.map((r) => r.status)).toEqual(Array(5).fill(200));
    expect(health[0]?.headers.get("ratelimit")).toBeNull();
  });
});

describe("client address", () => {
  it("ignores X-Forwarded-For when TRUST_PROXY is unset", async () => {
    const direct = await startTestGateway({ env: { TRUST_PROXY: "" } });
    try {
      // Every request claims another address, but they all come from 127.0.0.1: one bucket.
      const ok = await times(20, () => direct.request("GET", PATH, { ip: freshIp() }));
      expect(ok.filter((r) => r.status === SERVED)).toHaveLength(20);
      expectLimited(await direct.request("GET", PATH, { ip: freshIp() }), "anonymous", 20);
    } finally {
      await direct.close();
    }
  });
});

describe("several gateway replicas", () => {
  it("share their counters through Redis", async () => {
    const prefix = `rl-shared-${randomBytes(6).toString("hex")}`;
    const [a, b] = await Promise.all([
      startTestGateway({ rateLimitPrefix: prefix }),
      startTestGateway({ rateLimitPrefix: prefix }),
    ]);
    try {
      const ip = freshIp();
      const first = await times(10, () => a.request("GET", PATH, { ip }));
      const second = await times(10, () => b.request("GET", PATH, { ip }));
      expect([...first, ...second].every((r) => r.status === SERVED)).toBe(true);
      expectLimited(await a.request("GET", PATH, { ip }), "anonymous", 20);
      expectLimited(await b.request("GET", PATH, { ip }), "anonymous", 20);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
