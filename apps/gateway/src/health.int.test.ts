import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TTestGateway } from "./testing";

let gw: TTestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

describe("GET /api/health", () => {
  it("reports the app, database and Redis as ok", async () => {
    const res = await gw.request("GET", "/api/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "ok", checks: { app: "ok", db: "ok", redis: "ok" } });
    expect(new Date((res.body as { time: string }).time).getTime()).toBeGreaterThan(0);
  });

  it("is never rate limited", async () => {
    const statuses = await Promise.all(Array.from({ length: 30 }, () => gw.request("GET", "/api/health")));
    expect(statuses.every((r) => r.status === 200)).toBe(true);
    expect(statuses[0]?.headers.get("ratelimit")).toBeNull();
  });

  it("answers unknown paths with the contract's 404 body", async () => {
    const res = await gw.request("GET", "/api/nope");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: "not_found" });
  });
});

describe("GET /api/health/live", () => {
  it("answers 200 without checking dependencies, and is never rate limited", async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => gw.request("GET", "/api/health/live")),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses[0]?.body).toMatchObject({ status: "ok", uptimeSeconds: expect.any(Number) });
    expect(responses[0]?.headers.get("ratelimit")).toBeNull();
  });
});
