import { describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_MS, type TTrackerClient, retryDelayMs } from "./http";

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
