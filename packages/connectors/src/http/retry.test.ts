import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_RETRY_POLICY } from "./retry";

describe("backoffDelay", () => {
  it("grows exponentially with jitter between half and all of the ceiling", () => {
    const policy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 10_000 };
    expect(backoffDelay(1, policy, null, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, null, () => 1)).toBe(100);
    expect(backoffDelay(3, policy, null, () => 0)).toBe(200);
    expect(backoffDelay(3, policy, null, () => 1)).toBe(400);
  });

  it("caps both the exponential delay and a server's Retry-After", () => {
    expect(backoffDelay(20, DEFAULT_RETRY_POLICY, null, () => 1)).toBe(DEFAULT_RETRY_POLICY.maxDelayMs);
    expect(backoffDelay(1, DEFAULT_RETRY_POLICY, 3_600_000)).toBe(DEFAULT_RETRY_POLICY.maxDelayMs);
    expect(backoffDelay(1, DEFAULT_RETRY_POLICY, 1000)).toBe(1000);
  });
});
