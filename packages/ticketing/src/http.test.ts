import { describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_MS, type TTrackerClient, parseRetryAfter, retryDelayMs } from "./http";

const client = (provider: TTrackerClient["provider"]): TTrackerClient => ({
  provider,
  fetch,
  timeoutMs: 1000,
  secrets: [],
});
const res = (status: number, retryAfter?: string) => ({
  status,
  headers: new Headers(retryAfter === undefined ? {} : { "retry-after": retryAfter }),
  json: undefined,
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:02 GMT", now)).toBe(2000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
  });
});

describe("retryDelayMs", () => {
  it("retries a 429, with or without Retry-After, within the cap", () => {
    expect(retryDelayMs(client("jira"), res(429, "2"))).toBe(2000);
    expect(retryDelayMs(client("jira"), res(429))).toBe(1000);
    expect(retryDelayMs(client("jira"), res(429, String(MAX_RETRY_AFTER_MS / 1000 + 1)))).toBeNull();
  });

  it("retries a 503 only when it says when", () => {
    expect(retryDelayMs(client("linear"), res(503, "1"))).toBe(1000);
    expect(retryDelayMs(client("linear"), res(503))).toBeNull();
  });

  it("never retries other failures", () => {
    for (const status of [400, 401, 403, 404, 500, 502, 504]) {
      expect(retryDelayMs(client("jira"), res(status, "1"))).toBeNull();
    }
  });

  it("treats GitHub's 403 with Retry-After as a rate limit", () => {
    expect(retryDelayMs(client("github"), res(403, "1"))).toBe(1000);
    expect(retryDelayMs(client("github"), res(403))).toBeNull();
  });
});
