import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import { decodeCursor, encodeCursor, isCursorTimestamp } from "./pagination";

describe("cursor timestamps", () => {
  it.each([
    "2026-01-02T03:04:05Z",
    "2026-01-02T03:04:05.123Z",
    "2026-01-02 03:04:05.123456+00",
    "2026-01-02T03:04:05+02:00",
    "2026-01-02T03:04",
    "2024-02-29T00:00:00Z",
  ])("accepts %s", (s) => expect(isCursorTimestamp(s)).toBe(true));

  it.each([
    "1",
    "0",
    "-1",
    "",
    "2026",
    "2026-13-01T00:00:00Z",
    "2025-02-29T00:00:00Z",
    "2026-01-01T24:00:00Z",
    "0001-01-01T00:00:00Z",
    "1969-12-31T23:59:59Z",
    "99999-01-01T00:00:00Z",
    "2026-01-01T00:00:00Zjunk",
    "now",
  ])("refuses %j", (s) => expect(isCursorTimestamp(s)).toBe(false));
});

describe("decodeCursor", () => {
  it("round-trips what encodeCursor hands out", () => {
    const c = { at: "2026-01-02 03:04:05.123456+00", id: "fnd_abc234" };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
  });

  it("takes a bare ISO timestamp as 'older than'", () => {
    expect(decodeCursor("2026-01-02T03:04:05Z")).toEqual({ at: "2026-01-02T03:04:05Z", id: "" });
  });

  it.each([
    "1",
    "-1",
    "%00",
    "!!!",
    Buffer.from("[1,2]").toString("base64url"),
    Buffer.from('["1","x"]').toString("base64url"),
    Buffer.from('["2026-01-01T00:00:00Z","x\'; drop"]').toString("base64url"),
    Buffer.from('["2026-01-01T00:00:00Z","a","b"]').toString("base64url"),
    "a".repeat(600),
  ])("refuses %j with a 400", (raw) => {
    expect(() => decodeCursor(raw)).toThrow(AppError);
    try {
      decodeCursor(raw);
    } catch (e) {
      expect((e as AppError).status).toBe(400);
    }
  });
});
