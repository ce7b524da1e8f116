import { describe, expect, it } from "vitest";
import { entityTag, noneMatch } from "./conditional";

describe("If-None-Match (RFC 9110 §13.1.2, weak comparison)", () => {
  const tag = entityTag('{"a":1}');

  it("is a strong tag of the body: 27 base64url characters in quotes", () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(entityTag(Buffer.from('{"a":1}'))).toBe(tag);
    expect(entityTag('{"a":2}')).not.toBe(tag);
  });

  it("matches the tag, a weak form of it, one of a list, and *", () => {
    expect(noneMatch(tag, tag)).toBe(true);
    expect(noneMatch(`W/${tag}`, tag)).toBe(true);
    expect(noneMatch(`"x", W/"y",${tag}`, tag)).toBe(true);
    expect(noneMatch(" * ", tag)).toBe(true);
  });

  it("matches nothing else, and never throws on a malformed header", () => {
    for (const header of [undefined, "", '"x"', tag.slice(1, -1), "W/", ",,,", `"${tag}"`, "*, x"])
      expect(noneMatch(header, tag)).toBe(false);
  });
});
