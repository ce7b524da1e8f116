import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./retry-after";

describe("parseRetryAfter", () => {
  const now = new Date("2025-05-01T00:00:00.000Z");

  it("reads delta-seconds", () => {
    expect(parseRetryAfter("7", now)).toBe(7000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
  });

  it("reads an HTTP-date relative to now, never negative", () => {
    expect(parseRetryAfter("Thu, 01 May 2025 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Wed, 30 Apr 2025 23:00:00 GMT", now)).toBe(0);
  });

  it("takes now as a Date or epoch milliseconds", () => {
    const epoch = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("3", epoch)).toBe(3000);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:02 GMT", epoch)).toBe(2000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 00:00:00 GMT", epoch)).toBe(0);
  });

  it("ignores absent or unparseable values", () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter("", now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter("-5", now)).toBeNull();
    // A bare number with a sign or a decimal point is neither form.
    expect(parseRetryAfter("1.5", now)).toBeNull();
    expect(parseRetryAfter("2025", now)).toBe(2_025_000);
  });
});
