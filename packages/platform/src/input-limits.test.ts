import { describe, expect, it } from "vitest";
import { INPUT_LIMITS, inspectJson, stringProblem } from "./input-limits";

const nest = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describe("stringProblem", () => {
  it.each([
    ["plain", null],
    ["emoji pair 🔑", null],
    ["", null],
    ["a\u0000b", "NUL"],
    ["\ud800", "surrogate"],
    ["x\udc00", "surrogate"],
    ["\udc00\ud800", "surrogate"],
    ["\ud83d\udd11\ud83d", "surrogate"],
  ])("%j → %s", (s, expected) => {
    const problem = stringProblem(s);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});

describe("inspectJson", () => {
  it("accepts ordinary documents and nesting up to the limit", () => {
    expect(inspectJson({ name: "k", tags: ["a", { b: [1, 2, null] }] })).toBeNull();
    expect(inspectJson(nest(INPUT_LIMITS.maxDepth))).toBeNull();
  });

  it("refuses nesting past the limit without recursing (100,000 levels)", () => {
    expect(inspectJson(nest(INPUT_LIMITS.maxDepth + 1))?.message).toContain("nested deeper");
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(inspectJson(deep)?.message).toContain("nested deeper");
  });

  it("names the path of a bad string, in zod's dotted form", () => {
    expect(inspectJson({ config: { items: ["ok", "b\u0000d"] } })).toEqual({
      path: "config.items.1",
      message: "must not contain a NUL character",
    });
  });

  it("checks object keys too, and refuses __proto__", () => {
    expect(inspectJson({ ["k\ud800"]: 1 })?.message).toContain("key must not contain an unpaired");
    expect(inspectJson(JSON.parse('{"__proto__":{"admin":true}}'))).toMatchObject({ path: "__proto__" });
  });

  it("counts values over the whole document", () => {
    expect(inspectJson({ a: Array.from({ length: INPUT_LIMITS.maxNodes - 1 }, () => 0) })).toBeNull();
    expect(inspectJson({ a: Array.from({ length: INPUT_LIMITS.maxNodes }, () => 0) })?.message).toContain(
      "more than",
    );
  });
});
