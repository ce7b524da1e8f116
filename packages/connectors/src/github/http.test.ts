import { describe, expect, it } from "vitest";
import { nextLink, rateLimitWait } from "./http";

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const answer = (status: number, headers: Record<string, string>, body: unknown = { message: "x" }) =>
  new Response(JSON.stringify(body), { status, headers });

describe("nextLink", () => {
  it("reads rel=next out of GitHub's Link header, and nothing on the last page", () => {
    const link =
      '<https://api.github.com/organizations/9/repos?page=2>; rel="next", <https://api.github.com/organizations/9/repos?page=5>; rel="last"';
    expect(nextLink(link)).toBe("https://api.github.com/organizations/9/repos?page=2");
    expect(
      nextLink(
        '<https://api.github.com/x?page=1>; rel="prev", <https://api.github.com/x?page=1>; rel="first"',
      ),
    ).toBe(null);
    expect(nextLink(null)).toBe(null);
  });
});

describe("rateLimitWait", () => {
  it("waits retry-after first, then until x-ratelimit-reset, then a minute for a secondary limit", async () => {
    expect(await rateLimitWait(answer(403, { "retry-after": "42" }), NOW)).toBe(42_000);
    const reset = String(NOW / 1000 + 300);
    expect(
      await rateLimitWait(answer(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }), NOW),
    ).toBe(301_000);
    expect(await rateLimitWait(answer(429, {}), NOW)).toBe(60_000);
    const secondary = { message: "You have exceeded a secondary rate limit. Please wait a few minutes." };
    expect(await rateLimitWait(answer(403, { "x-ratelimit-remaining": "4000" }, secondary), NOW)).toBe(
      60_000,
    );
  });

  it("does not mistake a refusal for a rate limit", async () => {
    const refusal = { message: "Resource not accessible by integration" };
    expect(await rateLimitWait(answer(403, { "x-ratelimit-remaining": "4999" }, refusal), NOW)).toBe(null);
    expect(await rateLimitWait(answer(404, { "retry-after": "5" }), NOW)).toBe(null);
  });
});
